// Disk full, immutable files, folders in the way: the error names the file and the operation, no
// stack trace is printed, and the state left behind tells the truth (or is corrected by the next command).
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, wtLoop } from "../helpers/cli.ts";
import { ONE_STORY, readState } from "../helpers/fixtures.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

// chattr +i gives EPERM even to root; the flag is always taken off again so the temp dir can go.
const immutable: string[] = [];
const chattr = (flag: "+i" | "-i", path: string) => {
  const r = Bun.spawnSync(["chattr", flag, path], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`chattr ${flag} ${path}: ${r.stderr}`);
  if (flag === "+i") immutable.push(path);
};
afterEach(() => {
  for (const p of immutable.splice(0)) Bun.spawnSync(["chattr", "-i", p]);
});

describe("file errors", () => {
  test("info/exclude that cannot be written (EPERM): start names it, exits 1, and writes nothing", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const exclude = join(repo, ".git/info/exclude");
    chattr("+i", exclude);
    const r = await wtLoop(["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "true"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`wt-loop could not write ${exclude}: EPERM`);
    expect(r.stderr).not.toContain("    at ");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });
});

/** A `command` agent (a real shell script) that runs `body`, then completes the story. */
function agent(body = ""): string[] {
  const script = join(tempDir("io-agent-"), "agent.sh");
  writeFileSync(script, `cat >/dev/null\n${body}\nsed -i 's/- \\[ \\]/- [x]/' tasks.md\necho '<promise>COMPLETE</promise>'\n`);
  return ["--agent", "command", "--agent-cmd", `sh ${script}`, "--on-complete", "keep"];
}

/** The run failed on `file` with `code`, said so in one line, and left a state that is not `running`/`starting` for long. */
async function expectTruthfulFailure(repo: string, r: { code: number; stderr: string; stdout: string }, file: string, code: string) {
  expect(r.code).not.toBe(0);
  expect(r.stderr + r.stdout).toContain(`${file}: ${code}`);
  expect(r.stderr).not.toContain("    at ");
  expect(r.stderr).not.toContain("a bug");
  const status = await wtLoop(["status", "--json"], { cwd: repo });
  const s = JSON.parse(status.stdout);
  expect(["stuck", "stopped"]).toContain(s.status);
  expect(s.runner_pid).toBeNull();
}

describe("file errors during a loop", () => {
  test("the event log on a full disk (ENOSPC): the loop ends stuck naming the file", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    mkdirSync(join(repo, ".claude"));
    writeFileSync(join(repo, ".claude/loop-events.jsonl"), "");
    // /dev/full mounted over the log, in a mount namespace of this run only (a link to it is refused:
    // wt-loop never writes through links it did not make).
    const bin = join(tempDir("full-"), "wt-loop");
    writeFileSync(
      bin,
      `#!/bin/sh\nexec unshare -m --propagation private sh -c 'mount --bind /dev/full .claude/loop-events.jsonl && exec "$0" "$@"' ${process.execPath} ${CLI} "$@"\n`,
    );
    chmodSync(bin, 0o755);
    const r = await wtLoop(["start", "--terminal", "inline", ...agent()], { cwd: repo, bin });
    await expectTruthfulFailure(repo, r, join(repo, ".claude/loop-events.jsonl"), "ENOSPC");
    expect(readState(repo).error).toContain("ENOSPC");
  });

  test("the event log is a folder (EISDIR): the loop ends stuck naming it, not left `starting`", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    mkdirSync(join(repo, ".claude/loop-events.jsonl"), { recursive: true });
    const r = await wtLoop(["start", "--terminal", "inline", ...agent()], { cwd: repo });
    await expectTruthfulFailure(repo, r, join(repo, ".claude/loop-events.jsonl"), "EISDIR");
  });

  test("a file where the logs folder should be (EEXIST): the loop ends stuck naming it", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    mkdirSync(join(repo, ".claude"));
    writeFileSync(join(repo, ".claude/logs"), "not a folder");
    const r = await wtLoop(["start", "--terminal", "inline", ...agent()], { cwd: repo });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/\.claude\/logs\S*: (EEXIST|ENOTDIR)/);
    expect(r.stderr).not.toContain("    at ");
    expect(["stuck", "stopped"]).toContain(JSON.parse((await wtLoop(["status", "--json"], { cwd: repo })).stdout).status);
  });

  test("an immutable logs folder (EPERM): the iteration log cannot be created; stuck, naming it", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    mkdirSync(join(repo, ".claude/logs"), { recursive: true });
    chattr("+i", join(repo, ".claude/logs"));
    const r = await wtLoop(["start", "--terminal", "inline", ...agent()], { cwd: repo });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/\.claude\/logs\/\S*: EPERM/);
    expect(r.stderr).not.toContain("    at ");
    expect(r.stderr + r.stdout).not.toContain("not installed");
  });

  test("the state cannot be written mid-loop (EPERM): the runner says so and exits; the next status tells the truth", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await wtLoop(["start", "--terminal", "inline", ...agent(`chattr +i "${join(repo, ".claude")}"`)], { cwd: repo });
    immutable.push(join(repo, ".claude"));
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain(`${join(repo, ".claude/loop-state.json")}: EPERM`);
    expect(r.stderr).not.toContain("    at ");
    Bun.spawnSync(["chattr", "-i", join(repo, ".claude")]);
    const status = await wtLoop(["status", "--json"], { cwd: repo });
    expect(JSON.parse(status.stdout).status).not.toBe("running");
  });
});
