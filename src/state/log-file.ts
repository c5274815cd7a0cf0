import { closeSync, readSync, writeSync } from "node:fs";
import { io } from "../errors.ts";
import { openLogSafe } from "./safe-fs.ts";

/**
 * A fresh, empty log file of the run (an agent's output, a --verify command's). Its folder is made
 * again when it is missing: git ignores the loop's `.claude/`, so an agent's or a verify command's
 * `git clean -fdx` removes it mid-loop, and the next run's log must still have somewhere to go.
 * Never through a link (an agent may have swapped the folder or the file for one).
 */
export async function createLog(file: string): Promise<void> {
  await io("create", file, () => closeSync(openLogSafe(file)));
}

/**
 * Copies everything readable through `from` to `to`, 64 KB at a time: how a log deleted under an
 * open descriptor (an agent's `git clean -fdx`) is put back without holding it in memory.
 */
export function copyContent(from: number, to: number): void {
  const buf = new Uint8Array(1 << 16);
  for (let at = 0, got = 0; (got = readSync(from, buf, 0, buf.length, at)) > 0; at += got) writeSync(to, buf, 0, got);
}
