/**
 * A worktree as `git worktree add` has it for a moment: its admin folder (`.git/worktrees/<name>/`) locked
 * ("initializing", so that no prune takes it), `gitdir` and `HEAD` written, `commondir` created, not yet written.
 * A git that reads every worktree then dies "failed to read …/commondir" (test/checkpoint/worktree-being-added.test.ts):
 * `worktree list`, `for-each-ref` with `%(worktreepath)`, `worktree add` and `worktree remove` themselves, `branch -D`.
 */
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./repo.ts";

const PATH = process.env.PATH;
/** Puts back the PATH `countingGit` changed (in afterEach). */
export function restorePath(): void {
  process.env.PATH = PATH;
}

/** The commands that read every worktree, as a shell `case` pattern. */
export const READS_EVERY_WORKTREE = `*worktreepath*|*"worktree list"*`;

/**
 * A `git` on PATH that leaves a file in its folder after each git whose arguments match `counted` (a shell
 * `case` pattern), once git has ended. With `halfAddAfter`, the first git matching `halfAddAfter.pattern`, once
 * ended, leaves the admin folder of a worktree being added in `halfAddAfter.repo` (halfAdded): another
 * process's `git worktree add` begun right then; `finish` writes its `commondir`.
 */
export function countingGit(counted = READS_EVERY_WORKTREE, halfAddAfter?: { repo: string; pattern: string }): { reads: () => number; finish: () => void } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-half-added-");
  const admin = halfAddAfter && adminOf(halfAddAfter.repo);
  const begin = admin
    ? `case "$*" in ${halfAddAfter.pattern}) if mkdir "$D/begun" 2>/dev/null; then mkdir -p "$A" && printf initializing > "$A/locked" && ` +
      `echo ${JSON.stringify(join(tempDir(), "being-added"))}/.git > "$A/gitdir" && echo ${"0".repeat(40)} > "$A/HEAD" && : > "$A/commondir"; fi ;; esac`
    : "";
  const script = `#!/bin/sh
D=${JSON.stringify(dir)}
A=${JSON.stringify(admin ?? "")}
${JSON.stringify(real)} "$@"; rc=$?
case "$*" in ${counted}) touch "$D/read.$$" ;; esac
${begin}
exit $rc
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  process.env.PATH = `${dir}:${PATH}`;
  return {
    reads: () => readdirSync(dir).filter((f) => f.startsWith("read.")).length,
    finish: () => admin && finishAdd(admin),
  };
}

const adminOf = (repo: string) => join(repo, ".git/worktrees/being-added");
/** The rest of the add: `commondir` written, the folder unlocked. */
function finishAdd(admin: string): void {
  writeFileSync(join(admin, "commondir"), "../..\n");
  rmSync(join(admin, "locked"), { force: true });
}

/** The admin folder of a worktree `git worktree add` is making, as it is between creating `commondir` and writing it. */
export function halfAdded(repo: string): { finish: () => void } {
  const admin = adminOf(repo);
  mkdirSync(admin, { recursive: true });
  writeFileSync(join(admin, "locked"), "initializing");
  writeFileSync(join(admin, "gitdir"), `${join(tempDir(), "being-added")}/.git\n`);
  writeFileSync(join(admin, "HEAD"), `${"0".repeat(40)}\n`);
  writeFileSync(join(admin, "commondir"), "");
  return { finish: () => finishAdd(admin) };
}
