import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { io } from "../errors.ts";

/**
 * A fresh, empty log file of the run (an agent's output, a --verify command's). Its folder is made
 * again when it is missing: git ignores the loop's `.claude/`, so an agent's or a verify command's
 * `git clean -fdx` removes it mid-loop, and the next run's log must still have somewhere to go.
 */
export async function createLog(file: string): Promise<void> {
  await io("create", file, async () => {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "");
  });
}

