/**
 * An attempt's diff for the Files tab: the file the engine wrote when the attempt ended (engine/attempt.ts), before
 * its work was kept or reverted, so it is what that attempt changed whatever came after — never the worktree now.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { errorMessage } from "../errors.ts";

/** What is read of a diff: its start, which names the files; the file keeps all of it. */
export const SHOWN_DIFF_BYTES = 2 * 1024 * 1024;

/** The diff in `file` (its start, up to `limit` bytes); a sentence when it cannot be read. */
export function attemptDiff(file: string, limit = SHOWN_DIFF_BYTES): string {
  let text: string;
  let size: number;
  try {
    const fd = openSync(file, "r");
    try {
      size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, limit));
      const n = readSync(fd, buf, 0, buf.length, 0);
      // A cut may fall inside a character: its broken end is dropped, not shown as garbage.
      text = new TextDecoder().decode(buf.subarray(0, n)).replace(/\uFFFD+$/, "");
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    return `The diff in ${file} cannot be read: ${errorMessage(err)}`;
  }
  if (!text.trim()) return `The diff in ${file} is empty.`;
  const cut = size > limit ? `\n… the diff is cut here (${limit} of ${size} bytes): the whole of it is ${file}` : "";
  return text.replace(/\n$/, "") + cut;
}
