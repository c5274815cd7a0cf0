// A repository can commit anything under `.claude/`, links included. wt-loop never writes through a
// link it did not make: a planted link is refused before anything is written (exit 1, the link named,
// where it points and how to remove it), and one an agent plants mid-run ends the loop stuck, with
// nothing written through it.
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { wtLoop } from "../helpers/cli.ts";

const START = ["--done", "manual", "--terminal", "inline", "--on-complete", "keep", "--agent", "command"];

/** A repository that commits `.claude/<rel>` as a link to a bait file (or folder) outside it. */
function plantedRepo(rel: string, kind: "file" | "dir") {
  const repo = makeRepo({ "README.md": "# test\n" });
  const bait = join(tempDir("bait-"), kind === "file" ? ".bashrc" : "folder");
  if (kind === "file") writeFileSync(bait, "# the user's shell start-up\n");
  else mkdirSync(bait);
  mkdirSync(join(repo, ".claude"), { recursive: true });
  symlinkSync(bait, join(repo, ".claude", rel));
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "a .claude with links");
  return { repo, bait };
}

const untouched = (bait: string, kind: "file" | "dir") =>
  kind === "file" ? expect(readFileSync(bait, "utf8")).toBe("# the user's shell start-up\n") : expect(readdirSync(bait)).toEqual([]);

for (const [rel, kind] of [
  ["loop-events.jsonl", "file"],
  ["logs", "dir"],
  ["loop-state.json", "file"],
  ["learnings.md", "file"],
] as const) {
  test(`a committed .claude/${rel} link is refused before anything is written`, async () => {
    const { repo, bait } = plantedRepo(rel, kind);
    const r = await wtLoop(["start", "Greeting $(touch /tmp/pwned)", ...START, "--agent-cmd", "echo done"], { cwd: repo });
    untouched(bait, kind);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      `.claude/${rel} is a symbolic link (to ${bait}); wt-loop never writes through links it did not make. Remove it: rm .claude/${rel}`,
    );
  });
}

test("a .claude/loop-runs link put in after a run: the previous run is not archived through it", async () => {
  const repo = makeRepo({ "README.md": "# test\n" });
  expect((await wtLoop(["start", "Write the thing", ...START, "--agent-cmd", "echo done"], { cwd: repo })).code).not.toBe(1);
  const bait = tempDir("bait-");
  rmSync(join(repo, ".claude/loop-runs"), { recursive: true, force: true });
  symlinkSync(bait, join(repo, ".claude/loop-runs"));
  const r = await wtLoop(["start", "Write the thing", ...START, "--agent-cmd", "echo done"], { cwd: repo });
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toContain(
    `.claude/loop-runs is a symbolic link (to ${bait}); wt-loop never writes through links it did not make. Remove it: rm .claude/loop-runs`,
  );
  expect(readdirSync(bait)).toEqual([]);
});

test("`.claude` itself a link to another folder: refused, the folder stays empty", async () => {
  const repo = makeRepo({ "README.md": "# test\n" });
  const bait = tempDir("bait-");
  symlinkSync(bait, join(repo, ".claude"));
  const r = await wtLoop(["start", "Write the thing", ...START, "--agent-cmd", "echo done"], { cwd: repo });
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toContain(`.claude is a symbolic link (to ${bait}); wt-loop never writes through links it did not make. Remove it: rm .claude`);
  expect(readdirSync(bait)).toEqual([]);
});

test("a link planted where the state's temp file goes is never followed", async () => {
  const repo = makeRepo({ "README.md": "# test\n" });
  const bait = join(tempDir("bait-"), ".bashrc");
  writeFileSync(bait, "# the user's shell start-up\n");
  mkdirSync(join(repo, ".claude"));
  // Every name a predictable temp file could take for the next few pids.
  for (let pid = process.pid; pid < process.pid + 2000; pid++)
    for (let n = 1; n <= 3; n++) symlinkSync(bait, join(repo, ".claude", `loop-state.json.${pid}.${n}.tmp`));
  const r = await wtLoop(["start", "Write the thing", ...START, "--agent-cmd", "echo '<promise>COMPLETE</promise>'"], { cwd: repo });
  expect(r.stdout + r.stderr).not.toContain("symbolic link");
  expect(r.code).toBe(0);
  expect(readFileSync(bait, "utf8")).toBe("# the user's shell start-up\n");
});

for (const what of ["the event log", "its run's log folder"] as const) {
  test(`an agent that replaces ${what} with a link mid-run: the loop ends stuck, nothing written through it`, async () => {
    const repo = makeRepo({ "README.md": "# test\n" });
    const dir = tempDir("agent-");
    const bait = join(dir, "bait");
    const script = join(dir, "agent.sh");
    if (what === "the event log") writeFileSync(bait, "# the user's shell start-up\n");
    else mkdirSync(bait);
    const plant =
      what === "the event log"
        ? `rm -f .claude/loop-events.jsonl && ln -s ${bait} .claude/loop-events.jsonl`
        : `d=$(ls -d .claude/logs/*/) && rm -rf "$d" && ln -s ${bait} "\${d%/}"`;
    writeFileSync(script, `cat >/dev/null\n${plant}\necho b > b.txt\necho '<promise>COMPLETE</promise>'\n`);
    const r = await wtLoop(["start", "Write the thing", ...START, "--agent-cmd", `sh ${script}`], { cwd: repo });
    const said = r.stdout + r.stderr;
    expect(said).toContain("is a symbolic link");
    expect(said).toContain("wt-loop never writes through links it did not make");
    expect(r.code).not.toBe(0);
    if (what === "the event log") expect(readFileSync(bait, "utf8")).toBe("# the user's shell start-up\n");
    else expect(readdirSync(bait)).toEqual([]);
    const state = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
    expect(state.status).toBe("stuck");
    expect(state.reason).toContain("is a symbolic link");
  });
}
