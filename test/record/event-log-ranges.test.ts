// EventLog.append says where each event's line went (record/store.ts hands it to `run`'s screen, which reads an
// agent's message back by it): the same ranges LogTail reads (what `monitor` keeps), for a short event, a message
// written in slices, one spilled from the iteration log, and after a `git clean` deleted the log (Linux: continued).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EventLog, type LogRange } from "../../src/record/event-log.ts";
import type { LoopEvent } from "../../src/record/events.ts";
import { LogTail, readRange } from "../../src/screen/log-tail.ts";
import { loopPaths } from "../../src/state/paths.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";
import { fileStore } from "../../src/record/store.ts";

const message = (text: string, spilled?: object): LoopEvent =>
  ({ type: "StoryEvent", story_id: "1", event: { type: "Message", text, ...(spilled ? { spilled } : {}) } }) as LoopEvent;

describe("the event log's ranges", () => {
  test("each append's range is its line as LogTail reads it, spilled and sliced ones too, and goes on after the log was deleted", () => {
    const root = tempDir();
    mkdirSync(join(root, ".claude"));
    const path = loopPaths(root).events;
    const log = new EventLog(path);
    // A spilled text: its JSON-escaped content stands in the iteration log.
    const long = 'é "quoted" line\n'.repeat(5000);
    const iteration = join(root, ".claude", "iter-001.jsonl");
    const escaped = JSON.stringify(long).slice(1, -1);
    writeFileSync(iteration, `{"text":"${escaped}"}\n`);
    const start = Buffer.byteLength('{"text":"');
    const spilled = { path: iteration, start, end: start + Buffer.byteLength(escaped), chars: long.length };
    const texts = ["short", "x".repeat(3 << 20), long, "after the clean"];
    const ranges: LogRange[] = [];
    ranges.push(log.append({ type: "Error", message: "first" }));
    ranges.push(log.append(message(texts[0]!)));
    ranges.push(log.append(message(texts[1]!)));
    ranges.push(log.append(message(long.slice(0, 100), spilled)));
    rmSync(path); // a `git clean -fdx`
    ranges.push(log.append(message(texts[3]!)));
    log.close();
    const read = (r: LogRange) => JSON.parse(readRange(path, r.start, r.end));
    expect(read(ranges[0]!)).toMatchObject({ type: "Error", message: "first" });
    expect(ranges.slice(1).map((r) => read(r).event.text)).toEqual(texts);
    const tail = new LogTail(path).read(1 << 30);
    expect(tail.map((l) => ({ start: l.start, end: l.end }))).toEqual(ranges);
  });
});

describe("the store tells the event, then where it went", () => {
  test("subscribers hear an event before it is appended and again with its range; when the append fails, with none, and the failure is thrown", () => {
    const root = tempDir();
    mkdirSync(join(root, ".claude"));
    const heard: string[] = [];
    const store = fileStore(sampleState(), { state: join(root, ".claude", "loop-state.json"), events: loopPaths(root).events });
    store.subscribe((c) => heard.push(c.kind === "logged" ? `logged ${c.at ? `${c.at.start}-${c.at.end}` : "nowhere"}` : c.kind));
    store.emit({ type: "Error", message: "one" });
    expect(heard).toEqual(["event", `logged 0-${readFileSync(loopPaths(root).events).length - 1}`]);
    store.close();
    // A log that cannot be written (a full disk, a closed descriptor): the event is told first, then told unlogged.
    heard.length = 0;
    expect(() => store.emit({ type: "Error", message: "two" })).toThrow();
    expect(heard).toEqual(["event", "logged nowhere"]);
  });
});
