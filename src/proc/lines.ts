/**
 * Splitting output into lines. Only new text is searched and nothing is re-sliced, so a 10 MB line
 * arriving in 64 KB pieces costs O(size), not O(size²), and so do many small lines.
 */
import { closeSync, openSync, readSync } from "node:fs";

class LineSplitter {
  private pending: string[] = [];
  private decoder = new TextDecoder();
  constructor(private onLine: (line: string) => void) {}

  push(bytes: Uint8Array): void {
    const text = this.decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", start)) {
      const piece = text.slice(start, i);
      if (this.pending.length) {
        this.pending.push(piece);
        this.emit(this.pending.join(""));
        this.pending = [];
      } else this.emit(piece);
      start = i + 1;
    }
    if (start < text.length) this.pending.push(text.slice(start));
  }

  end(): void {
    const rest = this.pending.join("") + this.decoder.decode();
    this.pending = [];
    if (rest) this.emit(rest);
  }

  private emit(line: string) {
    this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}

export async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const lines = new LineSplitter(onLine);
  for await (const chunk of stream) lines.push(chunk);
  lines.end();
}

const TAIL_POLL_MS = 10;

/**
 * Reads the lines of a file another process is writing, until `finished` has resolved and the end of
 * the file is reached. One fixed buffer, so memory does not grow however fast the writer is: a pipe
 * read by the runtime would queue whatever the writer produced faster than it was consumed.
 */
export async function tailLines(path: string, onLine: (line: string) => void, finished: Promise<unknown>): Promise<void> {
  let done = false;
  finished.then(() => (done = true), () => (done = true));
  const fd = openSync(path, "r");
  const buf = new Uint8Array(1 << 16);
  const lines = new LineSplitter(onLine);
  let offset = 0;
  try {
    while (true) {
      const wasDone = done; // read once more after the writer is gone: its last bytes
      const got = readSync(fd, buf, 0, buf.length, offset);
      if (got > 0) {
        offset += got;
        lines.push(buf.subarray(0, got));
      } else if (wasDone) break;
      else await Promise.race([Bun.sleep(TAIL_POLL_MS), finished]); // the writer's exit ends the wait at once
    }
  } finally {
    closeSync(fd);
  }
  lines.end();
}
