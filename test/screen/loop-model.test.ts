// The loop screen's model, fed the event log of a real loop run with the fake agent: what each story
// shows, every key, following, scrolling at the tail, attempts separated, hostile text inert.
import { beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "../../src/screen/frame.ts";
import { LoopModel } from "../../src/screen/loop-model.ts";
import { clockElapsed } from "../../src/screen/loop-frame.ts";
import { formatDuration } from "../../src/text/format.ts";
import { memoryStore } from "../../src/record/store.ts";
import { showStore } from "../../src/run/wire.ts";
import type { LoopEvent } from "../../src/record/events.ts";
import type { State } from "../../src/state/schema.ts";
import { COMPLETE, runLoop, type LoopRun } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

const ESC = "\x1b";
const HOSTILE = `${ESC}]52;c;cm0gLXJmIH4=\x07${ESC}[2J${ESC}]0;PWNED\x07\u009b31m`;
const TASKS = `# Tasks\n\n## 1. First story ${HOSTILE}\n- [ ] 1.1 Make a\n\n## 2. Second story\n- [ ] 2.1 Make b\n\n## 3. Third story\n- [ ] 3.1 Make c\n`;
const LONG = Array.from({ length: 80 }, (_, i) => `line ${i} of a long message`).join("\n");

let run: LoopRun;
let repo: string;
beforeAll(async () => {
  repo = makeRepo({ "tasks.md": TASKS });
  run = await runLoop(
    repo,
    [
      { promise: "FAILED: cannot yet", messages: [`first try ${HOSTILE} done`] },
      COMPLETE({ messages: ["second try works", LONG], write: { "a.txt": "a\n" } }),
      COMPLETE({ messages: ["story two"], write: { "b.txt": "b\n" } }),
      { promise: "FAILED: no", messages: ["story three fails"] },
    ],
    ["--max-retries", "2", "--verify", "true"],
  );
}, 120_000);

const text = (lines: Frame["body"]["lines"]) => lines.map((l) => l.map((s) => s.text).join("")).join("\n");
const frameText = (f: Frame) =>
  [...f.header, f.footer, ...f.body.lines, ...(f.overlay ? [[{ text: f.overlay.title }], ...f.overlay.lines] : [])]
    .map((l) => l.map((s) => s.text).join(""))
    .concat(
      f.list.rows.map((r) => `${r.glyph} ${r.title} ${r.detail}`),
      f.tabs.map((t) => t.title),
    )
    .join("\n");

function model(mode: "run" | "monitor" = "run", cols = 100, rows = 30): LoopModel {
  const m = new LoopModel({ mode, events: join(repo, ".claude/loop-events.jsonl"), since: run.state.started_at });
  m.state(run.state);
  m.resize(cols, rows);
  return m;
}

describe("the loop screen's model over a real run's event log", () => {
  test("every planned story with its status, attempts and tokens; the gauge", () => {
    expect(run.code).toBe(2); // story 3 stuck
    const f = model().frame(Date.now());
    expect(f.layout).toBe("split");
    expect(f.list.rows.map((r) => r.glyph)).toEqual(["✓", "✓", "‼"]);
    expect(f.list.rows[0]!.detail).toContain("×2");
    expect(f.list.gauge).toEqual({ done: 2, total: 3 });
    expect(f.tabs.map((t) => t.title)).toEqual(["Agent", "Tasks", "Files", "Verify", "Prompt"]);
    expect(text(f.header)).toContain("stuck");
    expect(text(f.header)).toContain("iteration 5/");
    expect(f.list.rows[2]!.detail).toContain("×2");
  });

  test("the Agent tab: every attempt separated with its outcome and reason, messages in full, wrapped", () => {
    const m = model("run", 60, 200);
    m.key("k"); // off the followed story (3) to story 2
    m.key("k"); // story 1
    const body = text(m.frame(Date.now()).body.lines);
    expect(body).toContain("── attempt 1/2 · iteration 1/");
    expect(body).toContain("reason: cannot yet");
    expect(body).toContain("── attempt 2/2 · iteration 2/");
    expect(body).toContain("◆ complete");
    expect(body).toContain("line 79 of a long message");
    expect(body.indexOf("first try")).toBeLessThan(body.indexOf("second try"));
    for (const l of m.frame(Date.now()).body.lines) expect(l.map((s) => s.text).join("").length).toBeLessThanOrEqual(m.bodySize().cols);
  });

  test("hostile text in a message and a story title never reaches a frame", () => {
    const m = model();
    m.key("k");
    m.key("k");
    for (const tab of ["1", "2", "3", "4", "5"]) {
      m.key(tab);
      const all = frameText(m.frame(Date.now()));
      expect(all).not.toContain(ESC);
      expect(all).not.toContain("\u009b");
      expect(all).not.toContain("\x07");
    }
    m.key("1");
    m.key("home");
    expect(text(m.frame(Date.now()).body.lines)).toContain("^[]52;c;");
  });

  test("the running story is followed until another is selected; f follows again", () => {
    const m = model();
    const sel = () => m.frame(Date.now()).list.rows.findIndex((r) => r.selected);
    expect(sel()).toBe(2); // the last story worked on
    m.key("up");
    expect(sel()).toBe(1);
    m.key("j");
    m.key("down"); // stays at the last
    expect(sel()).toBe(2);
    m.key("k");
    m.key("f");
    expect(sel()).toBe(2);
    expect(m.chosen).toBeNull();
  });

  test("scroll: at the tail it follows; PgUp leaves it, PgDn back to the bottom follows again; Home, End, the wheel", () => {
    const m = model("run", 80, 20);
    m.key("k");
    m.key("k");
    const f0 = m.frame(Date.now());
    expect(f0.body.following).toBe(true);
    expect(f0.body.top + f0.body.lines.length).toBe(f0.body.total);
    m.key("pageup");
    const f1 = m.frame(Date.now());
    expect(f1.body.following).toBe(false);
    expect(f1.body.top).toBeLessThan(f0.body.top);
    m.key("wheeldown");
    expect(m.frame(Date.now()).body.top).toBe(f1.body.top + 3);
    m.key("home");
    expect(m.frame(Date.now()).body.top).toBe(0);
    m.key("end");
    expect(m.frame(Date.now()).body.following).toBe(true);
    m.key("wheelup");
    m.key("pagedown");
    m.key("pagedown");
    expect(m.frame(Date.now()).body.following).toBe(true);
    m.key("pageup");
    m.key("tab"); // a new tab starts over
    expect(m.frame(Date.now()).body.top).toBe(0);
  });

  test("Tasks, Files, Verify and Prompt show the story's boxes, changed files, verify output and prompts", () => {
    const m = model("run", 120, 400);
    m.key("k"); // story 2
    m.key("2");
    expect(text(m.frame(Date.now()).body.lines)).toContain("[x] 2.1 Make b");
    m.key("3");
    expect(text(m.frame(Date.now()).body.lines)).toContain("A b.txt");
    // Enter: the diff the attempt made, both its files (b.txt, the ticked tasks.md), from the file written when it ended.
    const diff = m.key("enter");
    expect(diff).toEqual({ kind: "diff", title: "story 2 · attempt 1 · 2 files", file: run.state.iterations[2]!.diff_file! });
    expect(readFileSync(run.state.iterations[2]!.diff_file!, "utf8")).toContain("+b");
    m.key("4");
    expect(text(m.frame(Date.now()).body.lines)).toContain("verify passed");
    m.key("5");
    const prompt = text(m.frame(Date.now()).body.lines);
    expect(prompt).toContain("## Your story: 2. Second story");
    // The whole prompt the agent got, every word whole (the tab wraps it at words to its width: spaces become breaks).
    const words = (t: string) => t.replace(/\s+/g, " ").trim();
    expect(words(prompt)).toContain(words(readFileSync(join(run.agentDir, "prompt-3.txt"), "utf8")));
  });
});

test("Prompt and Verify show one attempt, the latest first; [ ] and ← → choose another, named in the tab; another tab or story starts at the latest again", () => {
  const m = model("run", 120, 400);
  m.key("k");
  m.key("k"); // story 1: a failed attempt, then one that passed (and ran --verify)
  m.key("5");
  const flat = () => text(m.frame(Date.now()).body.lines).replaceAll("\n", "");
  const RETRY = "## Previous attempt failed"; // in the second prompt only
  expect(readFileSync(join(run.agentDir, "prompt-2.txt"), "utf8")).toContain(RETRY);
  const title = () => m.frame(Date.now()).tabs.find((t) => t.active)!.title;
  expect(title()).toBe("Prompt · attempt 2 (2/2)");
  expect(flat()).toContain(RETRY);
  expect(flat()).not.toContain("attempt 1 · iteration 1");
  expect(flat()).toContain("[ ] or ← → : the story's other attempts (2 in all)");
  m.key("[");
  expect(title()).toBe("Prompt · attempt 1 (1/2)");
  expect(flat()).toContain("## Your story: 1. First story");
  expect(flat()).not.toContain(RETRY);
  expect(flat()).toContain("attempt 1 · iteration 1 · failed");
  m.key("["); // the first stays
  expect(title()).toBe("Prompt · attempt 1 (1/2)");
  m.key("right");
  expect(title()).toBe("Prompt · attempt 2 (2/2)");
  m.key("left");
  m.key("4"); // another tab: its latest attempt
  expect(title()).toBe("Verify · attempt 2 (1/1)");
  expect(flat()).toContain("verify passed");
  m.key("[");
  expect(title()).toBe("Verify · attempt 2 (1/1)"); // one verify run: nothing else to choose
  m.key("5");
  m.key("]");
  expect(title()).toBe("Prompt · attempt 2 (2/2)");
  m.key("2");
  expect(title()).toBe("Tasks");
});

describe("keys", () => {
  const cases: [string, "run" | "monitor", string, unknown][] = [
    ["q stops the loop in run", "run", "q", { kind: "stop", key: "q" }],
    ["Ctrl-C stops the loop in run", "run", "ctrl-c", { kind: "stop", key: "ctrl-c" }],
    ["q leaves in monitor", "monitor", "q", { kind: "leave", code: 0 }],
    ["Ctrl-C leaves in monitor", "monitor", "ctrl-c", { kind: "leave", code: 130 }],
    ["p pauses", "run", "p", { kind: "pause" }],
    ["+ raises the limit", "run", "+", { kind: "max", delta: 10 }],
    ["- lowers it", "monitor", "-", { kind: "max", delta: -10 }],
    ["? opens the help", "run", "?", null],
    ["s does nothing in run", "run", "s", null],
  ];
  test.each(cases)("%s", (_, mode, key, action) => expect(model(mode).key(key)).toEqual(action as never));

  test("p resumes a paused loop", () => {
    const m = model();
    m.state({ ...run.state, status: "paused" as never });
    expect(m.key("p")).toEqual({ kind: "resume" });
  });

  test("monitor: the runner's Paused event makes p resume and the footer say so before the state is read again; Resumed makes p pause", () => {
    const m = model("monitor");
    m.state({ ...run.state, status: "running" });
    m.event({ type: "Paused", iteration: 1 } as never);
    expect(m.key("p")).toEqual({ kind: "resume" });
    expect(frameText(m.frame(Date.now()))).toContain("p resume");
    m.event({ type: "Resumed", paused_ms: 10 } as never);
    expect(m.key("p")).toEqual({ kind: "pause" });
    expect(frameText(m.frame(Date.now()))).toContain("p pause");
  });

  test("run: the screen holds the runner's own state (its store), changed before Paused and Resumed are told: p resumes, then pauses", async () => {
    const m = model();
    // As the runner wires its view (run/wire.ts showStore): the store's state in memory, its events as they come.
    const store = memoryStore({ ...run.state, status: "running" });
    showStore(store, { event: (e: LoopEvent) => m.event(e), state: (s: State) => m.state(s) });
    const seen: unknown[] = [];
    store.subscribe((c) => c.kind === "event" && seen.push(m.key("p"), frameText(m.frame(Date.now())).includes("p resume")));
    await store.record({ type: "Paused", iteration: 1 }, (s) => Object.assign(s, { status: "paused", pause_requested: false }));
    Object.assign(store.state, { status: "running" }); // as steer-apply.ts resumes: the state first, then the event
    store.emit({ type: "Resumed", paused_ms: 10 });
    expect(seen).toEqual([{ kind: "resume" }, true, { kind: "pause" }, false]);
  });

  test("? lists every key; any key closes it", () => {
    const m = model("monitor");
    m.key("?");
    const help = frameText(m.frame(Date.now()));
    for (const k of ["↑ ↓  k j", "f", "Tab", "[ ]  ← →", "PgUp", "Enter", "p", "+  -", "n", "q", "s", "?"]) expect(help).toContain(k);
    expect(m.key("q")).toBeNull();
    expect(m.frame(Date.now()).overlay).toBeNull();
  });

  test("monitor: s asks; y stops the loop, anything else goes back", () => {
    const m = model("monitor");
    m.key("s");
    expect(m.frame(Date.now()).overlay?.title).toBe("Stop this loop?");
    expect(m.key("n")).toBeNull();
    expect(m.frame(Date.now()).overlay).toBeNull();
    m.key("s");
    expect(m.key("y")).toEqual({ kind: "stop-loop" });
  });

  test("monitor: q leaves with 0; Ctrl-C leaves with 130, as the line stream's monitor and a shell say", () => {
    // The model answers before the loop's end (a fresh model has seen no end: `ended` was not called).
    expect(model("monitor").key("q")).toEqual({ kind: "leave", code: 0 });
    expect(model("monitor").key("ctrl-c")).toEqual({ kind: "leave", code: 130 });
  });

  test("n: a one-line input; Enter gives the note, Esc cancels", () => {
    const m = model();
    m.key("n");
    for (const k of ["h", "i", "space", "t", "o", "o", "backspace"]) m.key(k);
    expect(text(m.frame(Date.now()).overlay!.lines)).toContain("> hi to");
    expect(m.key("enter")).toEqual({ kind: "note", text: "hi to" });
    m.key("n");
    m.key("x");
    expect(m.key("escape")).toBeNull();
    expect(m.frame(Date.now()).overlay).toBeNull();
  });

  test("the end dialog: the summary, keep by default, cleanup chosen with ↓", () => {
    const m = model();
    m.ask("stuck");
    const f = m.frame(Date.now());
    expect(f.overlay!.title).toContain("stuck");
    expect(text(f.overlay!.lines)).toContain("2/3 stories complete · 5 iterations");
    // The receipt: each story's attempts (story 3 failed twice), time, tokens and cost.
    expect(text(f.overlay!.lines)).toMatch(/✓ 1\. First story .*\s+2 attempts\s+(\d+[hm] )?\d+[sm]\s+[\d,]+ tokens\s+\$0\.03/);
    expect(text(f.overlay!.lines)).toMatch(/‼ 3\. Third story\s+2 attempts/); // out of attempts: as the list marks it
    expect(m.key("enter")).toEqual({ kind: "answer", completion: "keep" });
    expect(m.frame(Date.now()).overlay).toBeNull();
    m.ask("stuck");
    m.key("down");
    expect(m.key("enter")).toEqual({ kind: "answer", completion: "cleanup" });
    m.ask("stuck");
    m.key("down");
    expect(m.key("ctrl-c")).toEqual({ kind: "answer", completion: "keep" }); // Ctrl-C keeps, as Esc does
  });

  test("a diff shown over the screen scrolls and closes; the result view quits with the code", () => {
    const m = model();
    m.showText(`diff ${ESC}[2J`, Array.from({ length: 100 }, (_, i) => `+line ${i}`).join("\n"));
    m.key("pagedown");
    const o = m.frame(Date.now()).overlay!;
    expect(o.title).not.toContain(ESC);
    expect(text(o.lines)).not.toContain("+line 0\n");
    expect(m.key("escape")).toBeNull();
    m.ended(2);
    expect(m.key("j")).toBeNull(); // still browsable after the end
    expect(m.key("p")).toBeNull(); // nothing left to steer
    expect(m.key("q")).toEqual({ kind: "quit", code: 2 });
    expect(m.key("ctrl-c")).toEqual({ kind: "quit", code: 2 });
  });

  test("after the end the result is a banner over a browsable screen; r shows the summary, wrapped to a narrow screen", () => {
    const m = model("run", 40, 20);
    m.ended(2, "Loop stopped: Stopped by the user");
    const f = m.frame(Date.now());
    expect(f.overlay).toBeNull();
    expect(f.header.map((l) => l.map((s) => s.text).join("")).join("\n")).toContain("Loop stopped");
    m.key("r");
    const lines = m.frame(Date.now()).overlay!.lines.map((l) => l.map((s) => s.text).join(""));
    for (const l of lines) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(36);
    expect(lines.join("")).toContain("2/3 stories complete · 5 iterations");
  });

  test("under 60×15 the layout is compact; a resize lays out again", () => {
    const m = model("run", 40, 10);
    const f = m.frame(Date.now());
    expect(f.layout).toBe("compact");
    expect(f.body.lines.length).toBeLessThanOrEqual(10);
    m.resize(120, 40);
    expect(m.frame(Date.now()).layout).toBe("split");
  });
});

describe("the clock tick", () => {
  test("the header and footer alone, as the whole frame has them; the whole frame when the event log grew or a tab watches a file", () => {
    const log = join(tempDir("wtl-clock-"), "loop-events.jsonl");
    const lines = readFileSync(join(repo, ".claude/loop-events.jsonl"), "utf8").split("\n").filter(Boolean);
    writeFileSync(log, `${lines.slice(0, 3).join("\n")}\n`);
    const m = new LoopModel({ mode: "monitor", events: log, since: run.state.started_at });
    m.resize(100, 30);
    const at = Date.now();
    const f = m.frame(at);
    expect(m.clock(at + 60_000)).toEqual({ header: m.frame(at + 60_000).header, footer: m.frame(at + 60_000).footer });
    expect(text(m.clock(at)!.header)).toBe(text(f.header));
    // The log grew: the tick composes the whole frame (and the record has read the new lines).
    appendFileSync(log, `${lines.slice(3).join("\n")}\n`);
    expect(m.clock(at)).toBeNull();
    expect(m.clock(at)).not.toBeNull();
    expect(frameText(m.frame(at))).not.toBe(frameText(f));
    // A tab other than Agent looks at its file on its own: composed whole on each tick.
    m.key("tab");
    expect(m.clock(at)).toBeNull();
  });
});

describe("small truths of the header", () => {
  const header = (m: LoopModel) => text(m.frame(Date.now()).header);
  const bare = (state: object) => {
    // An agent that reports no cost (Codex, Gemini, a command): no cost in the state, none in the events.
    const m = new LoopModel({ mode: "run", events: join(repo, "no-events.jsonl"), since: run.state.started_at });
    m.state({ ...run.state, total_cost_usd: 0, ...state });
    m.resize(100, 30);
    return m;
  };

  test("no cost reported: '-' as every other view says, not $0.00; with a budget, $0.00 of it", () => {
    expect(header(bare({}))).toContain("tokens · -");
    expect(header(bare({}))).not.toContain("$0.00");
    expect(header(bare({ max_cost_usd: 5 }))).toContain("$0.00 of $5.00");
  });

  test("the elapsed time leaves out the time paused, as `status` does: a pause under way too", () => {
    const now = Date.now();
    const started = new Date(now - 10 * 60_000).toISOString();
    const running = { status: "running", started_at: started, ended_at: null };
    expect(header(bare({ ...running, paused_ms: 0, paused_since: null }))).toMatch(/elapsed 10m(?! \d)/); // whole minutes after the first
    expect(header(bare({ ...running, paused_ms: 4 * 60_000, paused_since: null }))).toMatch(/elapsed 6m(?! \d)/);
    expect(header(bare({ ...running, paused_ms: 4 * 60_000, paused_since: new Date(now - 60_000).toISOString(), status: "paused" }))).toMatch(
      /elapsed 5m(?! \d)/,
    );
    expect(header(bare({ ...running, paused_ms: 9 * 60_000 + 30_000, paused_since: null }))).toMatch(/elapsed 3\ds/);
    const ended = new Date(now - 2 * 60_000).toISOString();
    expect(header(bare({ status: "done", started_at: started, ended_at: ended, paused_ms: 3 * 60_000, paused_since: null }))).toMatch(/elapsed 5m(?! \d)/);
  });

  test("the elapsed time shows seconds for the first minute, then whole minutes never ahead of status's, then hours as status does", () => {
    const at = (ms: number) => {
      const now = Date.now();
      return header(bare({ status: "running", started_at: new Date(now - ms).toISOString(), ended_at: null, paused_ms: 0, paused_since: null }));
    };
    expect(at(42_000)).toMatch(/elapsed 4[23]s/);
    expect(at(59_000)).toMatch(/elapsed (59|60)s|elapsed 1m(?! \d)/);
    expect(at(60_000 + 50_000)).toMatch(/elapsed 1m(?! \d)/); // status: 1m 50s
    expect(at(9 * 60_000 + 30_000)).toMatch(/elapsed 9m(?! \d)/);
    expect(at(12 * 60_000 + 50_000)).toMatch(/elapsed 12m(?! \d)/); // status: 12m 50s
    expect(at(59 * 60_000 + 58_000)).toMatch(/elapsed 59m(?! \d)/);
    expect(at(62 * 60_000 + 10_000)).toMatch(/elapsed 1h 02m/);
    expect(clockElapsed(59_000)).toBe(formatDuration(59_000));
    expect(clockElapsed(60_000)).toBe("1m");
    expect(clockElapsed(10 * 60_000 + 59_999)).toBe("10m");
  });

  test("monitor before any loop says it waits for one, as the line stream does, not 'starting · iteration 0/?'", () => {
    const m = new LoopModel({ mode: "monitor", events: join(repo, "no-events.jsonl") });
    m.resize(100, 30);
    expect(header(m)).toContain("Waiting for loop to start…");
    expect(header(m)).not.toContain("iteration 0");
    expect(header(m)).not.toContain("starting");
  });

  test("a stop's message leaves the footer once the loop is over: at its question, and after its end", () => {
    const footer = (m: LoopModel) => text([m.frame(Date.now()).footer]);
    const m = bare({});
    m.say("Stopping (q): press q twice more within 3 s to force-quit; the agent is being stopped, completed stories stay committed.");
    expect(footer(m)).toContain("Stopping (q)");
    m.ask("stopped");
    expect(footer(m)).not.toContain("Stopping");
    m.key("escape"); // kept
    m.say("Still stopping… press q once more within 3 s to force-quit.");
    m.ended(130, "Loop stopped: Stopped by the user");
    expect(footer(m)).not.toContain("Still stopping");
    expect(footer(m)).toContain("q leave");
  });
});
