// Over-long lines of an agent's output are scanned in pieces, never built whole: what comes out must
// be exactly what parsing the whole line would give, however the bytes were cut.
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeParser } from "../../src/agents/claude.ts";
import { command } from "../../src/agents/command.ts";
import { LongJsonLine, LongPlainLine } from "../../src/agents/long-line.ts";
import { appendSpilled, promiseOf, withSpills, type Spill } from "../../src/agents/spill.ts";
import type { StreamEvent } from "../../src/agents/stream.ts";
import { LineSplitter } from "../../src/proc/lines.ts";
import { tempDir } from "../helpers/repo.ts";

const assistant = (text: string) => JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] } });
const result = (text: string) => JSON.stringify({ type: "result", subtype: "success", is_error: false, result: text, num_turns: 1 });
// Every kind of escape, multi-byte characters raw and escaped, a surrogate pair, fences.
const PIECE = 'line "one"\\ tab\there é ü 😀 \u00e9\u2028 </promise> <promise>FAILED: x\n```\ncode\n```\n';
const big = (n: number, end: string) => PIECE.repeat(Math.ceil(n / PIECE.length)) + end;

/** Writes `lines` to a file and reads them back through LineSplitter in pieces of `size` bytes. */
function scan(lines: string[], size: number, plain = false) {
  const d = tempDir();
  const path = join(d, "iter-001.jsonl");
  writeFileSync(path, lines.join("\n") + "\n");
  const bytes = readFileSync(path);
  const parser = plain ? command.parser() : claudeParser();
  const events: StreamEvent[] = [];
  const found: Spill[] = [];
  const onLine = (l: string) => events.push(...parser.line(l));
  const sink = plain
    ? new LongPlainLine(path, onLine)
    : new LongJsonLine(path, (l, spills) => {
        found.push(...spills);
        events.push(...withSpills(parser.line(l), spills));
      });
  const splitter = new LineSplitter(onLine, { limit: 1000, sink });
  for (let i = 0; i < bytes.length; i += size) splitter.push(bytes.subarray(i, i + size));
  splitter.end();
  return { events, d, path, found };
}

/** The event-log record of `e`, written and read back. */
function logged(d: string, e: StreamEvent): any {
  const file = join(d, "events.jsonl");
  const fd = openSync(file, "w");
  const record = { ts: "t", type: "StoryEvent", story_id: "1", event: e };
  if (!appendSpilled(fd, record)) writeFileSync(fd, JSON.stringify(record) + "\n");
  closeSync(fd);
  return JSON.parse(readFileSync(file, "utf8"));
}

describe("a long JSON line, cut into pieces of any size", () => {
  const text = big(300_000, "All done.\n<promise>COMPLETE</promise>\n");
  test.each([1, 3, 7, 4096, 65_536, 1 << 20])("pieces of %i bytes: the message, its length, its head and its promise", (size) => {
    const { events, d, path, found } = scan(["short line, not JSON", assistant("before"), assistant(text), result("the end")], size);
    expect(events.map((e) => e.type)).toEqual(["Message", "Message", "Done"]);
    const m = events[1]!;
    if (m.type !== "Message") throw new Error("not a message");
    // The facts are data on the event: a copy of it (what a view may keep) still has them.
    const spilled = structuredClone(m).spilled!;
    expect(spilled).toMatchObject({ chars: text.length, path });
    // The byte range is the string's JSON-escaped content in the iteration log.
    expect(JSON.parse(`"${readFileSync(path).subarray(spilled.start, spilled.end).toString("utf8")}"`)).toBe(text);
    expect(m.text).toBe(text.slice(0, 64 * 1024));
    expect(promiseOf(m, found)).toEqual({ kind: "complete" });
    expect(logged(d, m).event).toEqual({ type: "Message", text, spilled });
    expect(events[0]).toEqual({ type: "Message", text: "before" });
  });

  test("a huge result line: the Done's final text is spilled, its promise found, its log entry whole", () => {
    const final = big(200_000, "```\n<promise>COMPLETE</promise>\n```\nI could NOT finish.");
    const { events, d, found } = scan([result(final)], 4096);
    const done = events[0]!;
    expect(done.type).toBe("Done");
    expect(promiseOf(done as never, found)).toBeNull();
    expect(logged(d, done).event.final_text).toBe(final);
  });

  test("a promise in a code fence at the end of a long message is not a promise", () => {
    const { events, found } = scan([assistant(big(200_000, "```\n<promise>COMPLETE</promise>\n"))], 65_536);
    expect(promiseOf(events[0] as never, found)).toBeNull();
  });

  test("a long line that is not valid JSON is skipped (it stays in the iteration log)", () => {
    const broken = assistant(big(200_000, "x")).replace('x"}', 'x\u0001"}'); // a raw control character in the string
    expect(scan([broken, assistant("after")], 4096).events).toEqual([{ type: "Message", text: "after" }]);
    expect(scan([assistant(big(200_000, "x")).slice(0, -10), assistant("after")], 4096).events.length).toBe(1);
  });
});

test("a plain-text agent's long line shows its first 64 KB and says where the rest is", () => {
  const { events, path } = scan(["a".repeat(200_000), "<promise>COMPLETE</promise>"], 4096, true);
  expect(events[0]).toEqual({ type: "Message", text: `${"a".repeat(65_536)} […${200_000 - 65_536} more bytes of this line are in ${path}]` });
  expect(events[1]).toEqual({ type: "Message", text: "<promise>COMPLETE</promise>" });
});
