/**
 * The promise protocol: how an agent's final message says it is done (`<promise>COMPLETE</promise>`) or
 * gave up (`<promise>FAILED: reason</promise>`).
 */
export type AgentPromise = { kind: "complete" } | { kind: "failed"; reason: string };

const OPEN = "<promise>";
const CLOSE = "</promise>";
/** How much of the end of a message is kept to find its promise (a FAILED reason longer than this is not seen). */
export const PROMISE_TAIL = 256 * 1024;

/**
 * Code fences (``` or ~~~, up to three spaces of indent) as CommonMark opens and closes them, fed a
 * text in pieces of any size. Only the start of each line is looked at, so a text of any length costs
 * one pass and a line of any length costs at most LINE_HEAD characters of memory.
 */
class FenceState {
  open: { char: string; len: number } | null = null;
  private head = ""; // the start of the current line, up to LINE_HEAD characters

  clone(): FenceState {
    return Object.assign(new FenceState(), { open: this.open, head: this.head });
  }

  push(text: string, from = 0, to = text.length): void {
    let i = from;
    while (i < to) {
      const nl = text.indexOf("\n", i);
      const end = nl < 0 || nl >= to ? to : nl;
      if (this.head.length < LINE_HEAD) this.head += text.slice(i, Math.min(end, i + LINE_HEAD - this.head.length));
      if (end === to) return;
      this.endLine();
      i = end + 1;
    }
  }

  private endLine(): void {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(this.head.replace(/\r$/, ""));
    if (m) {
      const run = m[1]!;
      if (!this.open) {
        if (!(run[0] === "`" && m[2]!.includes("`"))) this.open = { char: run[0]!, len: run.length }; // an info string has no backtick
      } else if (run[0] === this.open.char && run.length >= this.open.len && !m[2]!.trim()) this.open = null;
    }
    this.head = "";
  }
}
const LINE_HEAD = 256;

/**
 * Finds the promise of an agent's final message, fed in pieces (linear in the text; only its last
 * PROMISE_TAIL characters are kept). A promise counts only at the very end of the message (trailing
 * whitespace aside) and outside code fences: a promise quoted in a code block, or followed by more
 * text ("… but I could NOT finish"), is not the agent's verdict.
 */
export class PromiseScanner {
  private tail = "";
  private fence = new FenceState(); // the state at the start of `tail`

  push(text: string): void {
    if (text.length >= PROMISE_TAIL) {
      this.fence.push(this.tail);
      this.fence.push(text, 0, text.length - PROMISE_TAIL);
      this.tail = text.slice(text.length - PROMISE_TAIL);
      return;
    }
    this.tail += text;
    if (this.tail.length > 2 * PROMISE_TAIL) {
      const drop = this.tail.length - PROMISE_TAIL;
      this.fence.push(this.tail, 0, drop);
      this.tail = this.tail.slice(drop);
    }
  }

  result(): AgentPromise | null {
    const text = this.tail.trimEnd();
    if (!text.endsWith(CLOSE)) return null;
    const open = text.lastIndexOf(OPEN, text.length - CLOSE.length);
    if (open < 0) return null;
    const fence = this.fence.clone();
    fence.push(text, 0, open);
    if (fence.open) return null;
    const body = text.slice(open + OPEN.length, text.length - CLOSE.length).trim();
    if (body === "COMPLETE") return { kind: "complete" };
    if (body.startsWith("FAILED:")) return { kind: "failed", reason: body.slice("FAILED:".length).trim() || "no reason given" };
    return null;
  }
}

/** The promise that ends `text`, if any (see PromiseScanner). */
export function findPromise(text: string): AgentPromise | null {
  const s = new PromiseScanner();
  s.push(text);
  return s.result();
}
