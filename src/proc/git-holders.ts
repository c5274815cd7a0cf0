/**
 * Which git processes work in a folder: before wt-loop removes an `index.lock` it takes for a killed git's
 * of its own, it checks that no live git holds it rightly (the user's, their editor's). Git changes into the
 * worktree's top folder before it takes the lock, so a git working there has it as its current folder.
 */
import { existsSync, readdirSync } from "node:fs";
import { procfs } from "./procfs.ts";

/** Pids of the git processes whose current folder is `dir` or under it; null where /proc cannot tell (not Linux). */
export function gitsWorkingIn(dir: string): number[] | null {
  if (!existsSync("/proc/self/cwd")) return null;
  const found: number[] = [];
  const view = procfs([]);
  for (const pid of readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)) {
    const line = view.commandLine(pid); // null: gone, or not ours to read
    if (!line || !("argv" in line) || !/(^|\/)git$/.test(line.argv[0] ?? "")) continue;
    const cwd = view.cwd(pid);
    // Under `.git/` is another worktree's (a lane's), with an index of its own.
    if (cwd !== null && (cwd === dir || (cwd.startsWith(`${dir}/`) && !cwd.startsWith(`${dir}/.git/`)))) found.push(pid);
  }
  return found;
}

/** Is a git process working in `dir`? Where /proc cannot tell, assume yes (a lock is then left, never taken). */
export const gitRunningIn = (dir: string): boolean => (gitsWorkingIn(dir) ?? [0]).length > 0;
