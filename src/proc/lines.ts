/**
 * Splitting output into lines, on bytes: a newline byte never occurs inside a multi-byte UTF-8
 * character, so each line is decoded on its own and nothing is re-sliced (a 10 MB line arriving in
 * 64 KB pieces costs O(size), not O(size²), and so do many small lines).
 *
 * A line longer than a limit can be handed, piece by piece, to a `LongLineSink` instead of being
 * built as one string: the agent's output may hold single lines of tens of megabytes.
 */
import { closeSync, existsSync, openSync, readSync, writeSync } from "node:fs";
import { loopRoot, openSafe } from "./safe-fs.ts";
import { Wake } from "./wake.ts";

export interface LongLineSink {
  /** The line has outgrown the limit; it began at this offset of the file. Its bytes follow. */
  begin(start: number): void;
  push(bytes: Uint8Array): void;
  /** The line ended (at its newline or at the end of the output). */
  end(): void;
}

export interface LongLines {
  /** Lines of more bytes than this go to `sink`. */
  limit: number;
  sink: LongLineSink;
}

const NL = 10;

export class LineSplitter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private long = false;
  private offset = 0; // bytes seen before the current push
  private lineStart = 0;
  private decoder = new TextDecoder();

  constructor(
    private onLine: (line: string) => void,
    private longLines?: LongLines,
  ) {}

  /** The next bytes of the output. `bytes` may be reused by the caller afterwards. */
  push(bytes: Uint8Array): void {
    let start = 0;
    while (start < bytes.length) {
      const nl = bytes.indexOf(NL, start);
      const end = nl < 0 ? bytes.length : nl;
      const piece = bytes.subarray(start, end);
      if (this.long) this.longLines!.sink.push(piece);
      else if (this.longLines && this.pendingBytes + piece.length > this.longLines.limit) {
        this.long = true;
        const { sink } = this.longLines;
        sink.begin(this.lineStart);
        for (const p of this.pending) sink.push(p);
        sink.push(piece);
        this.pending = [];
        this.pendingBytes = 0;
      } else if (nl >= 0 && !this.pending.length) {
        this.emit(this.decoder.decode(piece)); // the common case: a whole line inside one read
        start = nl + 1;
        this.lineStart = this.offset + start;
        continue;
      } else if (piece.length) {
        this.pending.push(piece.slice());
        this.pendingBytes += piece.length;
      }
      if (nl < 0) break;
      this.finishLine();
      start = nl + 1;
      this.lineStart = this.offset + start;
    }
    this.offset += bytes.length;
  }

  end(): void {
    if (this.long || this.pendingBytes) this.finishLine();
  }

  private finishLine(): void {
    if (this.long) {
      this.long = false;
      this.longLines!.sink.end();
      return;
    }
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(this.decoder.decode(bytes));
  }

  private emit(line: string) {
    this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}

/**
 * The lines of a pipe, until its writers close it or `stop` resolves: then our end is closed and
 * whatever was not read by then is dropped (a process that outlived its command still holds the pipe).
 */
export async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void, stop?: Promise<unknown>): Promise<void> {
  const lines = new LineSplitter(onLine);
  if (!stop) {
    // Any async iterable of chunks (run-log.ts reads a file stream this way).
    for await (const chunk of stream) lines.push(chunk);
    return lines.end();
  }
  const reader = stream.getReader();
  const open = cancelOn(stop, reader);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    lines.push(value);
  }
  open.reader = null;
  lines.end();
}

/**
 * Cancels `reader` when `stop` resolves, unless it has been let go of by then (`reader` set to null).
 * Outside readLines on purpose: a callback made there would share its scope, and keep the stream
 * and the runtime's 256 KB read buffer of the pipe until `stop` — a second after every command.
 */
function cancelOn(stop: Promise<unknown>, reader: { cancel(): Promise<void> }): { reader: { cancel(): Promise<void> } | null } {
  const open: { reader: { cancel(): Promise<void> } | null } = { reader };
  void stop.then(() => open.reader?.cancel().catch(() => {}));
  return open;
}

/**
 * How long the tail waits for more: 10 ms while the writer writes, doubling while it is silent up to
 * 100 ms (what `monitor` waits between looks at the event log). The file is watched too (proc/wake.ts):
 * a write ends the wait at once, and while the watch holds, a silent writer is looked at once a second
 * (the slow poll that covers a watch that misses), not 10 times: an agent that thinks for minutes then
 * costs nothing (idle CPU under 1 %, docs/performance.md).
 */
const TAIL_POLL_MS = 10;
const TAIL_IDLE_MAX_MS = 100;
const TAIL_WATCHED_MAX_MS = 1000;
const YIELD_EVERY = 64; // reads of 64 KB: 4 MB
/** Bytes read between two collections (docs/performance.md "Memory"). */
const COLLECT_EVERY = 256 * 1024;

/**
 * Reads the lines of a file another process is writing, until `finished` has resolved and the end of
 * the file is reached. One fixed buffer, so memory does not grow however fast the writer is: a pipe
 * read by the runtime would queue whatever the writer produced faster than it was consumed.
 */
export async function tailLines(path: string, onLine: (line: string) => void, finished: Promise<unknown>, longLines?: LongLines): Promise<void> {
  let done = false;
  finished.then(
    () => (done = true),
    () => (done = true),
  );
  const fd = openSync(path, "r");
  const buf = new Uint8Array(1 << 16);
  const lines = new LineSplitter(onLine, longLines);
  let offset = 0;
  let reads = 0;
  let sinceCollect = 0;
  let wait = TAIL_POLL_MS;
  const wake = new Wake();
  const idleMax = wake.watch(path) ? TAIL_WATCHED_MAX_MS : TAIL_IDLE_MAX_MS;
  try {
    while (true) {
      const wasDone = done; // read once more after the writer is gone: its last bytes
      const got = readSync(fd, buf, 0, buf.length, offset);
      if (got > 0) {
        offset += got;
        wait = TAIL_POLL_MS;
        lines.push(buf.subarray(0, got));
        // Parsing what was read leaves garbage several times its size, which the runtime lets grow by
        // tens of megabytes before it collects: collected every COLLECT_EVERY bytes, it never piles up.
        if ((sinceCollect += got) >= COLLECT_EVERY) {
          sinceCollect = 0;
          Bun.gc(false);
        }
        // Let timers and signals in now and then (a stop must be honoured however fast the writer is).
        if (++reads % YIELD_EVERY === 0) await Bun.sleep(0);
      } else if (wasDone) break;
      else {
        await Promise.race([wake.wait(wait), finished]); // a write, or the writer's exit, ends the wait at once
        wait = Math.min(idleMax, wait * 2);
      }
    }
  } finally {
    wake.close();
    keepIfDeleted(path, fd);
    closeSync(fd);
  }
  lines.end();
}

/**
 * The file may have been deleted while it was written (an agent's `git clean -fdx` deletes the
 * loop's ignored logs): while the descriptor is open its bytes still exist, so they are copied back
 * to `path` in slices. What the tail is for — a log the user can read afterwards — then holds.
 */
function keepIfDeleted(path: string, fd: number): void {
  if (existsSync(path)) return;
  try {
    // Never through a link: the agent that deleted the log may have put one in the folder's place.
    const out = openSafe(loopRoot(path), path, "create");
    try {
      copyContent(fd, out);
    } finally {
      closeSync(out);
    }
  } catch {
    // Best effort: the run's outcome was read from the descriptor already.
  }
}

/**
 * Copies everything readable through `from` to `to`, 64 KB at a time: how a log deleted under an
 * open descriptor (an agent's `git clean -fdx`) is put back without holding it in memory.
 */
export function copyContent(from: number, to: number): void {
  const buf = new Uint8Array(1 << 16);
  for (let at = 0, got = 0; (got = readSync(from, buf, 0, buf.length, at)) > 0; at += got) writeSync(to, buf, 0, got);
}
