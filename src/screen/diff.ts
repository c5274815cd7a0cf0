/** A changed file's diff for the Files tab: what the running attempt changed, else the recent commits that touched it. */
import { errorMessage } from "../errors.ts";
import { Git } from "../checkpoint/git.ts";
import { inert } from "../term/inert.ts";

const GIT_MS = 10_000;

export async function diffText(worktree: string, path: string): Promise<string> {
  // Through Git: pinned to the worktree's own folders (a commondir the agent planted mid-run is not followed,
  // nor the config of the repository it names), hardened like every git of wt-loop's; no external diff program.
  const g = new Git({ cwd: worktree, timeoutMs: GIT_MS });
  const git = (cmd: string, ...args: string[]) => g.run(["-c", "color.ui=never", cmd, "--no-ext-diff", ...args], { allowFailure: true });
  try {
    const open = await git("diff", "HEAD", "--", path);
    if (open.stdout.trim()) return inert(open.stdout);
    const done = await git("log", "-p", "-n", "3", "--format=commit %h %s", "--", path);
    return done.stdout.trim() ? inert(done.stdout) : `No changes to ${path} in the worktree or its last commits.`;
  } catch (err) {
    return `git could not show the diff of ${path}: ${errorMessage(err)}`;
  }
}
