/** A changed file's diff for the Files tab: what the running attempt changed, else the recent commits that touched it. */
import { errorMessage } from "../errors.ts";
import { exec } from "../proc/spawn.ts";
import { inert } from "../term/inert.ts";

const GIT_MS = 10_000;

export async function diffText(worktree: string, path: string): Promise<string> {
  const git = (...args: string[]) => exec(["git", "-c", "color.ui=never", ...args], { cwd: worktree, timeoutMs: GIT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }, allowFailure: true });
  try {
    const open = await git("diff", "HEAD", "--", path);
    if (open.stdout.trim()) return inert(open.stdout);
    const done = await git("log", "-p", "-n", "3", "--format=commit %h %s", "--", path);
    return done.stdout.trim() ? inert(done.stdout) : `No changes to ${path} in the worktree or its last commits.`;
  } catch (err) {
    return `git could not show the diff of ${path}: ${errorMessage(err)}`;
  }
}
