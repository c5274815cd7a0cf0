// Two loops in two linked worktrees of one repository at once share `refs/stash`: each loop's
// checkpoints are its own (stored, applied and dropped by object id, under a lock), each worktree
// keeps exactly its own work, and the user's stash survives — with branch and stash checkpoints.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, tempDir } from "../helpers/repo.ts";
import { addUserWork, expectIntact, ralphStashes, record, userWorkRepo } from "../checkpoint/user-work.ts";
import { THREE_STORIES } from "../helpers/fixtures.ts";

/** Per story: a failed attempt (reverted), then a completed one; each agent run takes a moment. */
function script(wt: string, tag: string): object[] {
  const steps: object[] = [];
  for (const s of [1, 2, 3]) {
    steps.push({
      promise: "FAILED: not yet",
      hangSec: 0.3,
      write: { [join(wt, `${tag}-junk-${s}.txt`)]: "junk\n", [join(wt, "app.txt")]: `${tag} broke it\n` },
    });
    steps.push(COMPLETE({ hangSec: 0.3, write: { [join(wt, `${tag}-${s}.txt`)]: `${tag} story ${s}\n` } }));
  }
  return steps;
}

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  test("two loops in two linked worktrees at once: each keeps exactly its own work, no stash or branch of the user moves", async () => {
    const one = userWorkRepo(THREE_STORIES);
    const two = join(tempDir(), "two");
    git(one, "worktree", "add", "-q", "-b", "second", two);
    addUserWork(two);
    const before = [record(one), record(two)];
    const args = ["--checkpoint", mode, "--on-complete", "cleanup"];
    const t0 = Date.now();
    const [r1, r2] = await Promise.all([runLoop(one, script(one, "one"), args), runLoop(two, script(two, "two"), args)]);
    expect([r1.code, r2.code, r1.state.reason, r2.state.reason]).toEqual([0, 0, expect.anything(), expect.anything()]);
    expect(Date.now() - t0).toBeGreaterThan(1500); // six agent runs each: the loops overlapped for seconds
    for (const [wt, tag, other, b] of [
      [one, "one", "two", before[0]!],
      [two, "two", "one", before[1]!],
    ] as const) {
      expectIntact(wt, b);
      for (const s of [1, 2, 3]) {
        expect(readFileSync(join(wt, `${tag}-${s}.txt`), "utf8")).toBe(`${tag} story ${s}\n`);
        expect(existsSync(join(wt, `${tag}-junk-${s}.txt`))).toBe(false);
        expect(existsSync(join(wt, `${other}-${s}.txt`))).toBe(false);
      }
    }
    expect(ralphStashes(one)).toEqual([]);
    expect(git(one, "branch", "--list", "ralph/*")).toBe("");
  }, 120_000);
});
