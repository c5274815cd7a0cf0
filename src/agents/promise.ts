/**
 * The final-tag protocol: how an agent's final message says it is done (`<promise>COMPLETE</promise>`) or
 * gave up (`<promise>FAILED: reason</promise>`), and how a reviewer's gives its verdict
 * (`<review>APPROVE</review>`, `<review>CHANGES: reason</review>`), and an auditor's (`<audit>PASS</audit>`, or
 * `<audit>` with one `GAP: task` line per gap). One scanner finds any of these tags,
 * under one rule: the very last thing in the message, outside code fences.
 */
export type AgentPromise = { kind: "complete" } | { kind: "failed"; reason: string };
export type ReviewVerdict = { kind: "approve" } | { kind: "changes"; reason: string };

export type AuditVerdict = { kind: "pass" } | { kind: "gaps"; gaps: string[] };

const TAGS = ["promise", "review", "audit"] as const;
/** The tag that ends a message, and what it holds (trimmed). */
export interface FinalTag {
  tag: (typeof TAGS)[number];
  body: string;
}
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
 * Finds the tag that ends an agent's final message, fed in pieces (linear in the text; only its last
 * PROMISE_TAIL characters are kept). A tag counts only at the very end of the message (trailing
 * whitespace aside) and outside code fences: a promise quoted in a code block, or followed by more
 * text ("… but I could NOT finish"), is not the agent's verdict.
 */
export class FinalTagScanner {
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

  ending(): FinalTag | null {
    const text = this.tail.trimEnd();
    const tag = TAGS.find((t) => text.endsWith(`</${t}>`));
    if (!tag) return null;
    const [open, close] = [`<${tag}>`, `</${tag}>`];
    const at = text.lastIndexOf(open, text.length - close.length);
    if (at < 0) return null;
    const fence = this.fence.clone();
    fence.push(text, 0, at);
    if (fence.open) return null;
    return { tag, body: text.slice(at + open.length, text.length - close.length).trim() };
  }
}

/** The promise a final tag makes, if it is one. */
export function promiseIn(end: FinalTag | null): AgentPromise | null {
  if (end?.tag !== "promise") return null;
  if (end.body === "COMPLETE") return { kind: "complete" };
  if (end.body.startsWith("FAILED:")) return { kind: "failed", reason: end.body.slice("FAILED:".length).trim() || "no reason given" };
  return null;
}

/** The review verdict a final tag gives, if it is one. */
export function verdictIn(end: FinalTag | null): ReviewVerdict | null {
  if (end?.tag !== "review") return null;
  if (end.body === "APPROVE") return { kind: "approve" };
  if (end.body.startsWith("CHANGES:")) return { kind: "changes", reason: end.body.slice("CHANGES:".length).trim() || "no reason given" };
  return null;
}

/**
 * The audit's verdict a final tag gives, if it is one: PASS, or at least one `GAP: task` line (a
 * leading `- ` allowed); anything else in the tag is not a verdict.
 */
export function auditIn(end: FinalTag | null): AuditVerdict | null {
  if (end?.tag !== "audit") return null;
  if (end.body === "PASS") return { kind: "pass" };
  const gaps = end.body
    .split("\n")
    .map((l) => /^(?:[-*]\s+)?GAP:\s*(.*\S)\s*$/i.exec(l.trim())?.[1])
    .filter((g): g is string => !!g);
  return gaps.length ? { kind: "gaps", gaps } : null;
}

export class PromiseScanner extends FinalTagScanner {
  result = (): AgentPromise | null => promiseIn(this.ending());
}

export function findFinalTag(text: string): FinalTag | null {
  const s = new FinalTagScanner();
  s.push(text);
  return s.ending();
}

/** The promise that ends `text`, if any (see FinalTagScanner). */
export const findPromise = (text: string): AgentPromise | null => promiseIn(findFinalTag(text));
/** The review verdict that ends `text`, if any (see FinalTagScanner). */
export const findVerdict = (text: string): ReviewVerdict | null => verdictIn(findFinalTag(text));
