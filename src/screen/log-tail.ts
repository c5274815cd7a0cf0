/**
 * The event log read by byte offset: each complete line with where it starts and ends, so a screen can
 * keep the offsets of an agent's messages instead of their text and read back only what it shows.
 * Synchronous and bounded: a call reads at most `budget` bytes, so one frame never waits on a
 * gigabyte; the next call goes on where this one stopped.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const CHUNK = 1 << 20;

export interface LogLine {
  text: string;
  start: number;
  end: number;
}

export class LogTail {
  private offset = 0;
  /** Bytes of a line not yet ended (a torn last line while the runner writes it), and where it began. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ino = -1;
  /** Reused: a frame 30 times a second should not allocate a megabyte each time. */
  private buf = Buffer.allocUnsafe(CHUNK);

  constructor(readonly path: string) {}

  /** New complete lines since the last call, at most about `budget` bytes of them. */
  read(budget = 16 * CHUNK): LogLine[] {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return []; // not written yet
    }
    const out: LogLine[] = [];
    try {
      const st = fstatSync(fd);
      // A new file (git clean -fdx, a new run) or a shorter one: start over.
      if (st.ino !== this.ino || st.size < this.offset + this.pendingBytes) {
        if (this.ino !== -1) out.push({ text: "", start: -1, end: -1 }); // tells the reader to forget
        [this.ino, this.offset, this.pending, this.pendingBytes] = [st.ino, 0, [], 0];
      }
      const buf = this.buf;
      let at = this.offset + this.pendingBytes;
      for (let read = 0; at < st.size && read < budget; ) {
        const n = readSync(fd, buf, 0, Math.min(CHUNK, st.size - at), at);
        if (n <= 0) break;
        let from = 0;
        for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < n; nl = buf.indexOf(10, from)) {
          const piece = buf.subarray(from, nl);
          const line = this.pendingBytes ? Buffer.concat([...this.pending, piece]) : piece;
          const start = this.offset;
          this.offset = at + nl + 1;
          [this.pending, this.pendingBytes] = [[], 0];
          if (line.length) out.push({ text: line.toString("utf8"), start, end: start + line.length });
          from = nl + 1;
        }
        if (from < n) {
          this.pending.push(Buffer.from(buf.subarray(from, n)));
          this.pendingBytes += n - from;
        }
        at += n;
        read += n;
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }
}

/** The bytes `start`–`end` of `path` as text; empty when the file is gone or shorter. */
export function readRange(path: string, start: number, end: number): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "";
  }
  try {
    const buf = Buffer.allocUnsafe(end - start);
    const n = readSync(fd, buf, 0, buf.length, start);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The last `max` bytes of a file (a verify log can be any size), and whether there was more before them. */
export function readTail(path: string, max: number): { text: string; cut: boolean } | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - max);
    const buf = Buffer.allocUnsafe(size - from);
    const n = readSync(fd, buf, 0, buf.length, from);
    return { text: buf.subarray(0, n).toString("utf8"), cut: from > 0 };
  } finally {
    closeSync(fd);
  }
}
