/**
 * A worktree as `git worktree add` has it for a moment: its admin folder (`.git/worktrees/<name>/`) with `gitdir`
 * and `HEAD` written and `commondir` created, not yet written. A git that reads every worktree then dies
 * "failed to read …/commondir" (test/checkpoint/worktree-being-added.test.ts).
 */
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./repo.ts";

const PATH = process.env.PATH;
/** Puts back the PATH `countingGit` changed (in afterEach). */
export function restorePath(): void {
  process.env.PATH = PATH;
}

/** A `git` on PATH that leaves a file in its folder after each read of every worktree (once git has ended). */
export function countingGit(): { reads: () => number } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-half-added-");
  const script = `#!/bin/sh
case "$*" in
  *worktreepath*|*"worktree list"*) ${JSON.stringify(real)} "$@"; rc=$?; touch ${JSON.stringify(dir)}/read.$$; exit $rc ;;
esac
exec ${JSON.stringify(real)} "$@"
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  process.env.PATH = `${dir}:${PATH}`;
  return { reads: () => readdirSync(dir).filter((f) => f.startsWith("read.")).length };
}

/** The admin folder of a worktree `git worktree add` is making, as it is between creating `commondir` and writing it. */
export function halfAdded(repo: string): { finish: () => void } {
  const admin = join(repo, ".git/worktrees/being-added");
  mkdirSync(admin, { recursive: true });
  writeFileSync(join(admin, "gitdir"), `${join(tempDir(), "being-added")}/.git\n`);
  writeFileSync(join(admin, "HEAD"), `${"0".repeat(40)}\n`);
  writeFileSync(join(admin, "commondir"), "");
  return { finish: () => writeFileSync(join(admin, "commondir"), "../..\n") };
}
