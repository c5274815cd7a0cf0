// The story record: statuses from events, the event log read by offset as it grows, and a story with
// 10 MB of messages read back by window without holding them.
import { describe, expect, test } from "bun:test";
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoopEvent } from "../../src/record/events.ts";
import { LoopModel } from "../../src/screen/loop-model.ts";
import { StoryRecord, type StoryStatus } from "../../src/screen/story-record.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

const TOKENS = { input: 10, output: 5, cache_read: 0, cache_creation: 0 };
const started: LoopEvent = {
  type: "LoopStarted",
  worktree: "w",
  change: null,
  tasks_file: null,
  done_criteria: "tasks",
  checkpoint: "branch",
  max_iterations: 10,
  max_retries: 2,
  verify: null,
  stories: [
    { id: "1", title: "One", tasks: 1, done: 1 },
    { id: "2", title: "Two", tasks: 1, done: 0 },
    { id: "3", title: "Three", tasks: 2, done: 0 },
  ],
};
const progress = (id: string, iteration: number, attempt: number): LoopEvent => ({
  type: "StoryProgress",
  story_id: id,
  title: id,
  index: Number(id),
  total: 3,
  completed: 0,
  iteration,
  max_iterations: 10,
  attempt,
  max_retries: 2,
  worktree: "w",
});
const end = (id: string, iteration: number, outcome: "complete" | "failed" | "stopped"): LoopEvent => ({
  type: "IterationEnd",
  story_id: id,
  iteration,
  outcome,
  reason: outcome === "failed" ? "broken" : null,
  duration_ms: 1,
  turns: 1,
  tokens: TOKENS,
  cost_usd: 0.5,
  commits: [],
  files: [],
});

const lane = (id: string, iteration: number, step: Extract<LoopEvent, { type: "Lane" }>["step"], attempt = 1): LoopEvent => ({
  type: "Lane",
  story_id: id,
  iteration,
  attempt,
  step,
  worktree: `/g/wt-loop/lanes/w-1/${id}-1`,
  commits: [],
  paths: [],
  reason: step === "conflict" ? "a.txt conflicts" : null,
});

describe("story statuses", () => {
  const cases: [string, LoopEvent[], StoryStatus[]][] = [
    ["the plan: ticked stories are done, the rest pending", [started], ["done", "pending", "pending"]],
    ["an iteration begins: running", [started, progress("2", 1, 1)], ["done", "running", "pending"]],
    ["a complete attempt: done", [started, progress("2", 1, 1), end("2", 1, "complete")], ["done", "done", "pending"]],
    ["a failed attempt with attempts left: failed", [started, progress("2", 1, 1), end("2", 1, "failed")], ["done", "failed", "pending"]],
    ["out of attempts: stuck", [started, progress("2", 1, 1), end("2", 1, "failed"), progress("2", 2, 2), end("2", 2, "failed")], ["done", "stuck", "pending"]],
    ["a stopped attempt: pending again", [started, progress("3", 1, 1), end("3", 1, "stopped")], ["done", "pending", "pending"]],
    // --parallel: two lanes at once are both running; accepted in its lane is not done until integrated.
    [
      "two lanes at once: both running",
      [started, lane("2", 1, "opened"), progress("2", 1, 1), lane("3", 2, "opened"), progress("3", 2, 1)],
      ["done", "running", "running"],
    ],
    [
      "accepted in its lane, waiting for the merge queue: still running",
      [started, progress("2", 1, 1), end("2", 1, "complete"), lane("2", 1, "queued")],
      ["done", "running", "pending"],
    ],
    [
      "integrated: done",
      [
        started,
        progress("2", 1, 1),
        end("2", 1, "complete"),
        lane("2", 1, "queued"),
        lane("2", 1, "integrating"),
        lane("2", 1, "integrated"),
        lane("2", 1, "closed"),
      ],
      ["done", "done", "pending"],
    ],
    [
      "a conflict on integration: failed, it goes again",
      [started, progress("2", 1, 1), end("2", 1, "complete"), lane("2", 1, "integrating"), lane("2", 1, "conflict"), lane("2", 1, "closed")],
      ["done", "failed", "pending"],
    ],
    [
      "out of attempts after a failed verify on integration: stuck",
      [started, progress("2", 1, 2), end("2", 1, "complete"), lane("2", 1, "verify_failed", 2)],
      ["done", "stuck", "pending"],
    ],
  ];
  test.each(cases)("%s", (_, events, statuses) => {
    const r = new StoryRecord();
    for (const e of events) r.apply(e);
    expect(r.stories.map((s) => s.status)).toEqual(statuses);
  });

  test("attempts, tokens and cost add up per story and for the loop", () => {
    const r = new StoryRecord();
    for (const e of [started, progress("2", 1, 1), end("2", 1, "failed"), progress("2", 2, 2), end("2", 2, "complete")]) r.apply(e);
    const two = r.stories[1]!;
    expect(two.attempts.map((a) => [a.attempt, a.outcome, a.reason])).toEqual([
      [1, "failed", "broken"],
      [2, "complete", null],
    ]);
    expect([two.tokens, two.cost, r.loop.tokens, r.loop.cost]).toEqual([30, 1, 30, 1]);
  });
});

describe("the event log read by offset", () => {
  const line = (e: LoopEvent, ts = "2026-01-01T00:00:01.000Z") => JSON.stringify({ ts, ...e }) + "\n";

  test("a torn last line waits for its end; earlier runs' events are skipped; a replaced log starts over", () => {
    const dir = tempDir();
    const log = join(dir, "loop-events.jsonl");
    writeFileSync(log, line(progress("9", 1, 1), "2025-01-01T00:00:00.000Z") + line(started));
    const r = new StoryRecord({ events: log, since: "2026-01-01T00:00:00.000Z" });
    r.sync();
    expect(r.stories.map((s) => s.id)).toEqual(["1", "2", "3"]); // not story 9 of the earlier run
    const next = line(progress("2", 1, 1));
    appendFileSync(log, next.slice(0, 20));
    r.sync();
    expect(r.stories[1]!.status).toBe("pending");
    appendFileSync(log, next.slice(20));
    r.sync();
    expect(r.stories[1]!.status).toBe("running");
    // git clean -fdx, or a new run: another file where the log was.
    writeFileSync(join(dir, "new"), line(started));
    renameSync(join(dir, "new"), log);
    r.sync();
    expect(r.stories.map((s) => s.status)).toEqual(["done", "pending", "pending"]);
  });
});

describe("a story with 10 MB of messages", () => {
  test("is read back by window from the event log: the record keeps no message text", async () => {
    const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Big\n- [ ] 1.1 a\n" });
    const many = Array.from({ length: 200 }, (_, i) => `message ${i}\n${"x".repeat(100)}`);
    const run = await runLoop(repo, [COMPLETE({ hugeMessageMB: 10, messages: many })]);
    expect(run.code).toBe(0);
    const m = new LoopModel({ mode: "monitor", events: join(repo, ".claude/loop-events.jsonl"), since: run.state.started_at });
    m.resize(100, 30);
    const f = m.frame(Date.now());
    const messages = m.record.stories[0]!.agent.blocks.filter((b) => b.load);
    expect(messages.length).toBeGreaterThanOrEqual(201);
    expect(messages.every((b) => b.text === null)).toBe(true);
    expect(f.body.total).toBeGreaterThan((10 << 20) / 100); // the 10 MB line, wrapped
    m.key("home");
    const top = m
      .frame(Date.now())
      .body.lines.map((l) => l[0]!.text)
      .join("\n");
    expect(top).toContain("message 0");
    // The huge line's end, then deep inside it: each window is its own rows.
    const rows = () =>
      m
        .frame(Date.now())
        .body.lines.map((l) => l[0]!.text)
        .join("\n");
    m.key("end");
    expect(rows()).toContain(":end");
    for (let i = 0; i < 1000; i++) m.key("pageup");
    expect(rows()).toContain("lorem ipsum");
    expect(rows()).not.toContain(":end");
  }, 120_000);
});

test("--audit: an entry of its own after the stories, its rounds as attempts, its verdict and spending", () => {
  const r = new StoryRecord();
  const auditEnd = (iteration: number, round: number, verdict: "gaps" | "pass", gaps: string[]): LoopEvent => ({
    type: "AuditEnd",
    iteration,
    round,
    run: 1,
    verdict,
    gaps,
    reason: null,
    put_back: [],
    duration_ms: 5,
    log_file: "/l",
    final: true,
    tokens: TOKENS,
    cost_usd: 0.25,
  });
  for (const e of [started, progress("2", 1, 1), end("2", 1, "complete"), progress("3", 2, 1), end("3", 2, "complete")]) r.apply(e);
  r.apply({ type: "AuditStart", iteration: 3, round: 1, auditor: "claude", run: 1, log_file: "/l" });
  expect(r.stories.map((s) => [s.id, s.status])).toEqual([
    ["1", "done"],
    ["2", "done"],
    ["3", "done"],
    ["(audit)", "running"],
  ]);
  r.apply({ type: "AuditEvent", event: { type: "Message", text: "checking the farewell" } });
  r.apply(auditEnd(3, 1, "gaps", ["write bye.txt"]));
  const audit = r.stories.at(-1)!;
  expect(audit.status).toBe("failed");
  expect(audit.attempts.map((a) => [a.iteration, a.attempt, a.outcome, a.reason])).toEqual([[3, 1, "rejected", "write bye.txt"]]);
  r.apply({ type: "AuditStart", iteration: 5, round: 2, auditor: "claude", run: 1, log_file: "/l" });
  r.apply(auditEnd(5, 2, "pass", []));
  expect(audit.status).toBe("done");
  expect(audit.attempts).toHaveLength(2);
  expect(audit.cost).toBe(0.5);
  expect(r.loop.cost).toBe(1.5);
});

describe("the record fed by the store (run)", () => {
  const said = (text: string): LoopEvent => ({ type: "StoryEvent", story_id: "1", event: { type: "Message", text } });
  const line = (e: LoopEvent) => JSON.stringify({ ts: new Date().toISOString(), ...e });
  const window = (r: StoryRecord) =>
    r
      .story("1")
      .agent.window(80, 0, 10)
      .map((l) => l.map((s) => s.text).join(""));

  test("a message is read back by its range; one not logged is kept; a log made again empty leaves the earlier ones said gone, not read from its new lines", () => {
    const path = join(tempDir(), "events.jsonl");
    const first = line(said("the first"));
    writeFileSync(path, `${first}\n`);
    const r = new StoryRecord({ events: path, fed: true });
    r.fed(said("the first"), { start: 0, end: first.length });
    r.fed(said("not in the log"), null);
    expect(r.sync()).toBe(false); // the log is not followed
    // (Not drawn yet: a message read while it was there is kept as read, in the window's cache.)
    // The log made again, empty (a `git clean` without /proc): a line of the same length at the same place.
    const again = line(said("the other"));
    expect(again.length).toBe(first.length);
    writeFileSync(path, `${again}\n`);
    r.fed(said("the other"), { start: 0, end: again.length });
    expect(window(r)).toEqual(["(this message is no longer in the event log)", "not in the log", "the other"]);
  });

  test("a spilled message, handed over with its head only, is shown whole: its lines are counted from the log", () => {
    const path = join(tempDir(), "events.jsonl");
    const whole = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    const spilled = { chars: whole.length, path: "iter-001.jsonl", start: 0, end: 0 };
    const logged = line({ type: "StoryEvent", story_id: "1", event: { type: "Message", text: whole, spilled } });
    writeFileSync(path, `${logged}\n`);
    const r = new StoryRecord({ events: path, fed: true });
    r.fed({ type: "StoryEvent", story_id: "1", event: { type: "Message", text: "line 1\nline 2", spilled } }, { start: 0, end: logged.length });
    expect(r.story("1").agent.rows(80)).toBe(40);
    expect(window(r).slice(-1)).toEqual(["line 10"]);
    expect(
      r
        .story("1")
        .agent.window(80, 39, 1)
        .map((l) => l[0]!.text),
    ).toEqual(["line 40"]);
  });
});
