// The user has an uncommitted edit and an untracked file; the agent deletes both, says COMPLETE, and
// the attempt is accepted. What the user had stays reachable from a ref the state names, the end box
// and `status` say which files and print the command that brings them back — with branch and stash
// checkpoints, after cleanup, and after a runner killed right after the snapshot was made (before or
// after its ref was written), followed by a plain `start` to done.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { ONE_STORY, readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { hangEnv } from "../checkpoint/user-work.ts";

const sleepers: number[] = []; // the hung fake git's sleeps: this test's own
afterEach(() => {
  for (const pid of sleepers.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

/** The message of the git call that writes the snapshot's ref (test/fixtures/git-hang matches it). */
const SNAPSHOT_REF_CALL = "wt-loop: your work before the loop";

function repoWithUserWork(): string {
  const repo = makeRepo({ "tasks.md": ONE_STORY, "app.txt": "v1\n", "other.txt": "o1\n" });
  writeFileSync(join(repo, "app.txt"), "v2: the user's uncommitted edit\n");
  writeFileSync(join(repo, "notes.txt"), "the user's untracked notes\n");
  writeFileSync(join(repo, "other.txt"), "an edit the agent leaves alone\n");
  return repo;
}

/** The agent deletes both files of the user's and says it is done. */
const deletesTheUsersWork = (repo: string) => COMPLETE({ git: [["rm", "-qf", "app.txt"]], deleteFile: join(repo, "notes.txt") });

/** The text of the last box in `out`, its lines unwrapped. */
function endBox(out: string): string {
  const lines = out.split("\n");
  const top = lines.findLastIndex((l) => l.includes("╭─ Loop"));
  const bottom = lines.findIndex((l, i) => i > top && l.includes("╰"));
  return lines
    .slice(top + 1, bottom)
    .map((l) => l.replace(/^[^│]*│ ?/, "").replace(/\s*│[^│]*$/, ""))
    .join(" ");
}

/** Runs the restore command the text names (in backquotes), as the user would paste it. */
function runRestoreCommand(repo: string, text: string): void {
  const cmd = /`(git restore --source=[^`]+)`/.exec(text)?.[1];
  expect(cmd, `no restore command in: ${text}`).toBeDefined();
  const r = Bun.spawnSync(["sh", "-c", cmd!], { cwd: repo, stderr: "pipe" });
  expect(r.exitCode, r.stderr.toString()).toBe(0);
}

const expectBack = (repo: string) => {
  expect(readFileSync(join(repo, "app.txt"), "utf8")).toBe("v2: the user's uncommitted edit\n");
  expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("the user's untracked notes\n");
};

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  test("the agent deletes the user's edit and untracked file and is accepted: end box and status say so, the command brings them back", async () => {
    const repo = repoWithUserWork();
    const r = await runLoop(repo, [deletesTheUsersWork(repo)], ["--checkpoint", mode, "--on-complete", "cleanup"]);
    expect([r.code, r.state.status, r.state.completion]).toEqual([0, "done", "cleanup"]);
    expect(existsSync(join(repo, "notes.txt"))).toBe(false); // accepted: the agent's deletion stands
    const w = r.state.user_work!;
    const ref = w.ref;
    expect(ref).toStartWith("refs/wt-loop/");
    expect(git(repo, "rev-parse", ref)).toBe(w.commit);
    expect(w.lost).toEqual(["app.txt", "notes.txt"]);

    const box = endBox(r.stdout);
    expect(box).toContain("app.txt");
    expect(box).toContain("notes.txt");
    expect(box).not.toContain("other.txt"); // still as the user left it
    expect(box).toContain(`git update-ref -d ${ref}`); // how the user removes it
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toContain(`git restore --source=${ref}`);

    runRestoreCommand(repo, box);
    expectBack(repo);
  }, 90_000);

  test("nothing of the user's was touched: no ref is left and nothing is said", async () => {
    const repo = repoWithUserWork();
    const r = await runLoop(repo, [COMPLETE({ write: { [join(repo, "new.txt")]: "new\n" } })], ["--checkpoint", mode, "--on-complete", "cleanup"]);
    expect([r.code, r.state.status]).toEqual([0, "done"]);
    expect(r.state.user_work ?? null).toBeNull();
    expect(git(repo, "for-each-ref", "refs/wt-loop/")).toBe("");
    expect(endBox(r.stdout)).not.toContain("git restore");
  }, 90_000);

  test.each([
    ["before", {}],
    ["after", { FAKE_GIT_HANG_AFTER: "1" }],
  ] as const)(
    "killed -9 as the snapshot's ref is written (%s the write), then start to done: the end box's command brings the work back",
    async (_when, after) => {
      const repo = repoWithUserWork();
      const flag = join(tempDir("hang-"), "hang.flag");
      writeFileSync(flag, "");
      const agent = fakeAgent([COMPLETE()], tempDir("fake-agent-"));
      const proc = spawnWtLoop(["start", "--terminal", "inline", "--checkpoint", mode, "--on-complete", "cleanup"], {
        cwd: repo,
        env: { ...agent.env, ...hangEnv(flag, SNAPSHOT_REF_CALL), ...after },
        stdout: "ignore",
        stderr: "ignore",
      });
      await waitFor("the snapshot's ref to be written", () => existsSync(`${flag}.hanging`), 30_000, { whileRunning: proc });
      sleepers.push(Number(readFileSync(`${flag}.hanging`, "utf8")));
      proc.kill("SIGKILL");
      await proc.exited;
      rmSync(flag);
      const recorded = readState(repo).user_work?.commit;
      expect(recorded).toBeString(); // recorded before the ref is written

      const r = await runLoop(repo, [deletesTheUsersWork(repo)], ["--checkpoint", mode]);
      expect([r.code, r.state.status]).toEqual([0, "done"]);
      // The killed run's snapshot was taken over: one ref, the one the state names, and no other.
      expect(r.state.user_work?.commit).toBe(recorded);
      expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")).toBe(r.state.user_work!.ref);
      runRestoreCommand(repo, endBox(r.stdout));
      expectBack(repo);
    },
    90_000,
  );
});

test("two linked worktrees of the same name each keep their own snapshot, and each one's command brings back its own work", async () => {
  const repo = makeRepo({ "tasks.md": ONE_STORY, "app.txt": "v1\n", "other.txt": "o1\n" });
  const linked = join(tempDir("b-"), "repo"); // the same folder name: refs are shared, their names must not be
  git(repo, "worktree", "add", "-q", "-b", "second", linked);
  for (const [wt, who] of [
    [repo, "main"],
    [linked, "linked"],
  ] as const) {
    writeFileSync(join(wt, "app.txt"), `v2: ${who}'s edit\n`);
    writeFileSync(join(wt, "notes.txt"), `${who}'s notes\n`);
  }
  const a = await runLoop(repo, [deletesTheUsersWork(repo)], ["--on-complete", "cleanup"]);
  const b = await runLoop(linked, [deletesTheUsersWork(linked)], ["--on-complete", "cleanup"]);
  expect([a.state.status, b.state.status]).toEqual(["done", "done"]);
  expect(a.state.user_work!.ref).not.toBe(b.state.user_work!.ref);
  expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/").split("\n")).toHaveLength(2);
  runRestoreCommand(linked, endBox(b.stdout));
  runRestoreCommand(repo, endBox(a.stdout));
  for (const [wt, who] of [
    [repo, "main"],
    [linked, "linked"],
  ] as const) {
    expect(readFileSync(join(wt, "app.txt"), "utf8")).toBe(`v2: ${who}'s edit\n`);
    expect(readFileSync(join(wt, "notes.txt"), "utf8")).toBe(`${who}'s notes\n`);
  }
}, 120_000);
