/**
 * Over-long lines of an agent's output (a single JSON line of tens of megabytes: one huge message),
 * scanned as they arrive instead of being built as strings, so the runner's memory stays flat.
 *
 * A JSON line's strings longer than LONG_STRING are taken out of it: each becomes a `Spill` (where
 * its JSON-escaped bytes are in the iteration log, its decoded length, its first 64 KB, and the
 * promise its end holds), and a sentinel stands in its place. What is left is small and goes to the
 * adapter's parser as usual; a Message or Done whose text is a sentinel carries the spill, and the
 * event log copies the string's bytes from the iteration log into its entry — the message is never
 * truncated, and never held whole.
 */
import { FinalTagScanner } from "./promise.ts";
import type { LongLineSink } from "../proc/lines.ts";
import { HEAD_CHARS, SENTINEL, type Spill } from "./spill.ts";

/** Lines longer than this (bytes) are scanned, not built. */
export const LONG_LINE = 1 << 20;
/** Strings longer than this (bytes, as escaped in the line) are spilled. */
const LONG_STRING = 64 * 1024;
/** What is left of a line once its long strings are out; beyond this the line is skipped (kept in the log). */
const MAX_REDUCED = 4 << 20;
const GC_EVERY = 2 << 20;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const encoder = new TextEncoder();

/** The decoded text of one long JSON string, fed its escaped bytes in pieces: only its head and tail are kept. */
class LongText {
  chars = 0;
  head = "";
  ok = true;
  private scanner = new FinalTagScanner();
  private decoder = new TextDecoder();
  private carry = ""; // an escape sequence cut by the end of a piece

  constructor(readonly start: number) {}

  push(bytes: Uint8Array): void {
    if (this.ok) this.feed(this.carry + this.decoder.decode(bytes, { stream: true }));
  }

  finish(): void {
    const rest = this.carry + this.decoder.decode();
    this.carry = "";
    if (rest && this.ok) this.feed(rest);
    if (this.carry) this.ok = false;
  }

  ending = () => this.scanner.ending();

  private feed(text: string): void {
    let cut = text.length;
    for (let i = text.indexOf("\\"); i >= 0; ) {
      const len = text[i + 1] === "u" ? 6 : 2;
      if (i + len > text.length) {
        cut = i;
        break;
      }
      i = text.indexOf("\\", i + len);
    }
    this.carry = text.slice(cut);
    if (!cut) return;
    let decoded: string;
    try {
      decoded = JSON.parse(`"${text.slice(0, cut)}"`) as string;
    } catch {
      this.ok = false; // not a valid JSON string: the line is not JSON after all
      return;
    }
    this.chars += decoded.length;
    if (this.head.length < HEAD_CHARS) this.head += decoded.slice(0, HEAD_CHARS - this.head.length);
    this.scanner.push(decoded);
  }
}

/** A LongLineSink for JSON lines: hands `onLine` the line with its long strings replaced, and the spills. */
export class LongJsonLine implements LongLineSink {
  private offset = 0;
  private reduced: Uint8Array[] = [];
  private reducedBytes = 0;
  private inString = false;
  private escape = false;
  private short: Uint8Array[] = [];
  private shortBytes = 0;
  private stringStart = 0;
  private long: LongText | null = null;
  private spills: Spill[] = [];
  private invalid = false;
  private sinceGc = 0;

  constructor(
    private path: string,
    private onLine: (line: string, spills: Spill[]) => void,
  ) {}

  begin(start: number): void {
    Object.assign(this, {
      offset: start,
      reduced: [],
      reducedBytes: 0,
      inString: false,
      escape: false,
      short: [],
      shortBytes: 0,
      long: null,
      spills: [],
      invalid: false,
    });
  }

  push(bytes: Uint8Array): void {
    // Decoding leaves a few short-lived copies of every piece; collected now and then, they never
    // pile up into the peak a 50 MB line would otherwise cost (the collector runs late by itself).
    this.sinceGc += bytes.length;
    if (this.sinceGc > GC_EVERY) {
      this.sinceGc = 0;
      Bun.gc(true);
    }
    let i = 0;
    while (i < bytes.length && !this.invalid) {
      if (!this.inString) {
        const q = bytes.indexOf(QUOTE, i);
        this.addReduced(bytes.subarray(i, q < 0 ? bytes.length : q));
        if (q < 0) break;
        this.inString = true;
        this.stringStart = this.offset + q + 1;
        i = q + 1;
      } else {
        const q = this.closingQuote(bytes, i);
        this.addString(bytes.subarray(i, q < 0 ? bytes.length : q));
        if (q < 0) break;
        this.closeString(this.offset + q);
        i = q + 1;
      }
    }
    this.offset += bytes.length;
  }

  end(): void {
    const ok = !this.invalid && !this.inString;
    const text = ok ? new TextDecoder().decode(Buffer.concat(this.reduced)) : "";
    const spills = this.spills;
    this.begin(0); // drop everything before calling out
    if (ok) this.onLine(text, spills);
  }

  /** The index of the string's closing quote in `bytes` from `from`, or -1; linear however many escapes. */
  private closingQuote(bytes: Uint8Array, from: number): number {
    let i = from;
    if (this.escape) {
      if (i >= bytes.length) return -1;
      this.escape = false;
      i++;
    }
    let q = bytes.indexOf(QUOTE, i);
    let b = bytes.indexOf(BACKSLASH, i);
    while (true) {
      if (b < 0 || (q >= 0 && q < b)) return q;
      if (b + 1 >= bytes.length) {
        this.escape = true;
        return -1;
      }
      i = b + 2;
      if (q >= 0 && q < i) q = bytes.indexOf(QUOTE, i);
      b = bytes.indexOf(BACKSLASH, i);
    }
  }

  private addReduced(bytes: Uint8Array): void {
    if (!bytes.length) return;
    this.reducedBytes += bytes.length;
    if (this.reducedBytes > MAX_REDUCED) this.invalid = true;
    else this.reduced.push(bytes.slice());
  }

  private addString(bytes: Uint8Array): void {
    if (this.long) return this.long.push(bytes);
    if (this.shortBytes + bytes.length <= LONG_STRING) {
      if (bytes.length) this.short.push(bytes.slice());
      this.shortBytes += bytes.length;
      return;
    }
    this.long = new LongText(this.stringStart);
    for (const p of this.short) this.long.push(p);
    this.long.push(bytes);
    this.short = [];
    this.shortBytes = 0;
  }

  private closeString(end: number): void {
    this.inString = false;
    const long = this.long;
    if (!long) {
      this.addReduced(Buffer.concat([encoder.encode('"'), ...this.short, encoder.encode('"')]));
      this.short = [];
      this.shortBytes = 0;
      return;
    }
    this.long = null;
    long.finish();
    if (!long.ok) {
      this.invalid = true;
      return;
    }
    const index = this.spills.push({ path: this.path, start: long.start, end, chars: long.chars, head: long.head, ending: long.ending }) - 1;
    this.addReduced(encoder.encode(JSON.stringify(SENTINEL + index)));
  }
}

/** A LongLineSink for plain-text agents: the line's first 64 KB and how much more there was. */
export class LongPlainLine implements LongLineSink {
  private head: Uint8Array[] = [];
  private bytes = 0;
  constructor(
    private path: string,
    private onLine: (line: string) => void,
  ) {}
  begin(): void {
    this.head = [];
    this.bytes = 0;
  }
  push(bytes: Uint8Array): void {
    if (this.bytes < HEAD_CHARS) this.head.push(bytes.slice(0, HEAD_CHARS - this.bytes));
    this.bytes += bytes.length;
  }
  end(): void {
    const head = new TextDecoder().decode(Buffer.concat(this.head));
    this.head = [];
    this.onLine(`${head} […${this.bytes - HEAD_CHARS} more bytes of this line are in ${this.path}]`);
  }
}
