/**
 * What says a file was written since it was last looked at: its inode (a write by rename is a new one,
 * even within one millisecond), size, mtime and ctime; "" when it cannot be looked at. Asked at once,
 * not on the runtime's file threads: the looks a follower of a silent loop takes each second then wake
 * no other thread (idle CPU, docs/performance.md).
 */
import { statSync } from "node:fs";

export function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return "";
  }
}
