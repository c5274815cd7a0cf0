import { closeSync } from "node:fs";
import { io } from "../errors.ts";
import { openLogSafe } from "../proc/safe-fs.ts";

/**
 * A fresh, empty log file of the run (an agent's output, a --verify command's). Its folder is made
 * again when it is missing: git ignores the loop's `.claude/`, so an agent's or a verify command's
 * `git clean -fdx` removes it mid-loop, and the next run's log must still have somewhere to go.
 * Never through a link (an agent may have swapped the folder or the file for one).
 */
export async function createLog(file: string): Promise<void> {
  await io("create", file, () => closeSync(openLogSafe(file)));
}
