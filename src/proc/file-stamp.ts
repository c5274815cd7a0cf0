/**
 * What says a file was written since it was last looked at: its inode (a write by rename is a new one,
 * even within one millisecond), size, mtime and ctime; "" when it cannot be looked at. Asked at once,
 * not on the runtime's file threads: the looks a follower of a silent loop takes each second then wake
 * no other thread (idle CPU, docs/performance.md).
 *
 * `"own"`: the file a writer wrote itself (state/store.ts stateWriter), looked at without following a
 * link, and "" unless it is a plain file: a link or anything else put in its place is never its file.
 */
import { lstatSync, statSync } from "node:fs";

export function fileStamp(path: string, whose: "any" | "own" = "any"): string {
  try {
    const st = whose === "own" ? lstatSync(path, { bigint: true }) : statSync(path, { bigint: true });
    if (whose === "own" && !st.isFile()) return "";
    // In nanoseconds: two writes of the same size within one millisecond may reuse a freed inode. The ctime too: an
    // mtime can be set back (`touch -r`, `cp -p`) and an in-place rewrite keeps inode and size.
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return "";
  }
}
