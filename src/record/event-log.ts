/**
 * The append-only event log (`.claude/loop-events.jsonl`): one JSON object per line, each with the
 * time it happened. What `monitor`, `log` and the MCP server read back (events.ts parseLoggedEvent).
 */
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from "node:fs";
import { appendSpilled } from "../agents/spill.ts";
import { ioSync } from "../errors.ts";
import { copyContent } from "../proc/lines.ts";
import { loopRoot, openSafe } from "../proc/safe-fs.ts";
import type { LoopEvent } from "./events.ts";

/** Where an event's line is in the log: its first byte and the byte after it (its newline left out), as LogTail reads it. */
export interface LogRange {
  start: number;
  end: number;
}

/** Reads a logged line back by its range (run's screen), from the log's own file whatever became of its name. */
export interface LogReader {
  readBack(at: LogRange): string | null;
}

const SLICE = 1 << 20;

export class EventLog implements LogReader {
  private fd: number;
  /** The same file, for reading back (see reader); null when it could not be opened so. */
  private rfd: number | null;
  constructor(readonly path: string) {
    this.fd = this.open();
    this.rfd = this.reader();
  }
  private open(): number {
    // Checked on every open: the repository may have committed a link here, an agent may plant one.
    return ioSync("open", this.path, () => openSafe(loopRoot(this.path), this.path, "append"));
  }
  /**
   * A `git clean -fdx` (the agent's, a --verify command's) removes the ignored `.claude/`: events
   * written to the unlinked file would reach no reader. A new file takes its place, with everything
   * written so far (on Linux the deleted file is still readable through /proc/self/fd; elsewhere the
   * new file starts empty). One fstat per event; the copy only after a deletion. Returns the log's size:
   * where the next event starts (the single writer's file, appended to through this descriptor only).
   */
  private reclaim(): number {
    const st = fstatSync(this.fd);
    if (st.nlink > 0) return st.size;
    return ioSync("open", this.path, () => {
      // The new file first: when it cannot be made (a file where `.claude/` was) the old descriptor
      // stays this log's, closed once by close(), not twice.
      const fd = this.open();
      try {
        // Ours is write-only; /proc/self/fd reopens the deleted file for reading (Linux only: elsewhere
        // what was logged before the deletion is gone with the file).
        const old = openSync(`/proc/self/fd/${this.fd}`, "r");
        try {
          copyContent(old, fd);
        } finally {
          closeSync(old);
        }
      } catch {
        // not Linux
      }
      closeSync(this.fd);
      this.fd = fd;
      if (this.rfd !== null) closeSync(this.rfd);
      this.rfd = this.reader();
      return fstatSync(fd).size;
    });
  }
  /** Appends the event; returns where its line went (the screen of `run` reads an agent's message back from there). */
  append(event: LoopEvent): LogRange {
    const start = this.reclaim();
    ioSync("append to", this.path, () => this.write(event));
    return { start, end: fstatSync(this.fd).size - 1 };
  }
  private write(event: LoopEvent): void {
    // Written in slices (substrings share the JSON's storage): a message of megabytes is then
    // encoded a megabyte at a time rather than copied whole once more.
    const record = { ts: new Date().toISOString(), ...event };
    // A message too long to hold was scanned, not kept: its text is copied from the iteration log.
    if (appendSpilled(this.fd, record)) return;
    const json = JSON.stringify(record);
    // One write for an event of ordinary size (an agent streaming short lines writes thousands a second).
    if (json.length < SLICE) return appendFileSync(this.fd, `${json}\n`);
    for (let i = 0; i < json.length; i += SLICE) appendFileSync(this.fd, json.slice(i, i + SLICE));
    appendFileSync(this.fd, "\n");
  }
  /**
   * The log's file opened again for reading: through it, a line `run`'s screen reads back stays readable after a
   * `git clean` removed the file, until the next event makes it again (read by its name, every message first drawn
   * then was said gone, and stayed so in the screen's cache). Null when the name is not this file (moved meanwhile).
   */
  private reader(): number | null {
    try {
      const fd = openSync(this.path, "r");
      const [mine, read] = [fstatSync(this.fd), fstatSync(fd)];
      if (mine.ino === read.ino && mine.dev === read.dev) return fd;
      closeSync(fd);
    } catch {
      // not readable by its name: the reader reads by the name, as monitor does
    }
    return null;
  }
  readBack(at: LogRange): string | null {
    if (this.rfd === null) return null;
    const buf = Buffer.allocUnsafe(at.end - at.start);
    try {
      return buf.subarray(0, readSync(this.rfd, buf, 0, buf.length, at.start)).toString("utf8");
    } catch {
      return null;
    }
  }
  close(): void {
    closeSync(this.fd);
    // Closed, its number may be another file's: the screen (still shown after the run) reads by the name then.
    if (this.rfd !== null) closeSync(this.rfd);
    this.rfd = null;
  }
}
