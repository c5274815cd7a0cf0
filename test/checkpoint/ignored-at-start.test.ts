// The ignored paths an attempt starts with (never deleted by its revert, reported when the agent deletes them)
// come from the last measure's `git status` when only the loop's keep or revert came since
// (src/checkpoint/attempt-guard.ts): a git process an attempt. Two ways that list could be wrong must not be:
// it was taken under ignore rules the revert undid, or a pause let the user make ignored files after it.
import { expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { attemptGuard, IGNORED_FRESH_MS } from "../../src/checkpoint/attempt-guard.ts";
import { Git } from "../../src/checkpoint/git.ts";
import { git, makeRepo } from "../helpers/repo.ts";

/**
 * A clean checkpoint at HEAD of a repository that ignores `*.env` in `.git/info/exclude` — a rule a revert does not
 * put back when an agent removes it (a `.gitignore`'s comes back with the tree before anything is deleted) — with a
 * clock the test moves.
 */
function setup() {
  const repo = makeRepo({ "a.txt": "a\n", ".gitignore": "*.log\n" });
  writeFileSync(join(repo, ".git/info/exclude"), "*.env\n");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const sha = git(repo, "rev-parse", "HEAD");
  const clock = { t: 0 };
  return {
    repo,
    guard: attemptGuard(
      g,
      () => sha,
      () => [],
      () => clock.t,
    ),
    clock,
  };
}

test("an agent that ignores its own new file is reverted; the next attempt neither keeps that file nor reports it deleted", async () => {
  const { repo, guard } = setup();
  await guard.ensure("1");
  appendFileSync(join(repo, ".gitignore"), "*.tmp\n"); // the agent's rule for its own junk
  writeFileSync(join(repo, "junk.tmp"), "the agent's\n");
  expect((await guard.changes()).progress).toBe(true);
  await guard.revert();
  expect(existsSync(join(repo, "junk.tmp"))).toBe(false); // untracked again under the checkpoint's rules: gone
  await guard.ensure("1");
  const next = await guard.changes(); // the retry did nothing
  expect(next.deletedIgnored).toEqual([]);
  expect(next.progress).toBe(false);
});

test("a file the user made ignored during a pause survives a later attempt that removes the rule and is reverted", async () => {
  const { repo, guard, clock } = setup();
  await guard.ensure("1");
  writeFileSync(join(repo, "a.txt"), "the agent's try\n");
  await guard.changes();
  await guard.revert();
  clock.t += IGNORED_FRESH_MS + 1; // the loop paused here; the user kept a secret beside the code
  writeFileSync(join(repo, "secret.env"), "TOKEN=mine\n");
  await guard.ensure("1");
  writeFileSync(join(repo, ".git/info/exclude"), ""); // the agent drops the rule: secret.env looks untracked
  await guard.changes();
  await guard.revert();
  expect(readFileSync(join(repo, "secret.env"), "utf8")).toBe("TOKEN=mine\n");
});

test("right after a revert, an ignored file the last measure saw is protected from the next attempt's revert", async () => {
  const { repo, guard } = setup();
  await guard.ensure("1");
  writeFileSync(join(repo, "made.env"), "an ignored file made while the agent ran\n");
  await guard.changes();
  await guard.revert(); // ignored: left alone
  await guard.ensure("1"); // no pause: the measure's list stands
  writeFileSync(join(repo, ".git/info/exclude"), "");
  await guard.changes();
  await guard.revert();
  expect(existsSync(join(repo, "made.env"))).toBe(true);
});
