// What users of lazygit, k9s and ralph-tui reach for on the loop screen: g/G to the first and
// last story, the selected story's whole title on a line of its own, a mark when new output arrived below a
// scrolled-up Agent tab, and `/` to find text in the Agent tab.
import { expect, test } from "bun:test";
import type { LoopEvent } from "../../src/record/events.ts";
import type { Frame } from "../../src/screen/frame.ts";
import { LoopModel } from "../../src/screen/loop-model.ts";

const LONG_TITLE = "Stream the agent's messages into the loop screen, readable at any width";
const TITLES = ["Parse the configuration", "Cost meter", LONG_TITLE];
const text = (lines: Frame["header"]) => lines.map((l) => l.map((s) => s.text).join("")).join("\n");

function model(): { m: LoopModel; say: (text: string) => void } {
  const m = new LoopModel({ mode: "run" });
  const ev = (e: object) => m.event(e as LoopEvent);
  ev({
    type: "LoopStarted",
    worktree: "repo",
    change: null,
    tasks_file: null,
    done_criteria: "tasks",
    checkpoint: "branch",
    max_iterations: 30,
    max_retries: 3,
    verify: null,
    stories: TITLES.map((title, i) => ({ id: String(i + 1), title, tasks: 1, done: 0 })),
  });
  ev({
    type: "StoryProgress",
    story_id: "3",
    title: LONG_TITLE,
    index: 3,
    total: 3,
    completed: 0,
    iteration: 1,
    max_iterations: 30,
    attempt: 1,
    max_retries: 3,
    worktree: "repo",
  });
  m.resize(80, 24);
  const say = (t: string) => ev({ type: "StoryEvent", story_id: "3", event: { type: "Message", text: t } });
  return { m, say };
}

const selected = (m: LoopModel) => m.frame(Date.now()).list.rows.findIndex((r) => r.selected);

test("g goes to the first story, G to the last (Home and End stay the text's)", () => {
  const { m } = model();
  expect(selected(m)).toBe(2);
  m.key("g");
  expect(selected(m)).toBe(0);
  m.key("G");
  expect(selected(m)).toBe(2);
  m.key("home");
  expect(selected(m)).toBe(2);
});

test("the selected story's whole title is on a line under the header, where the list cuts it", () => {
  const { m } = model();
  const f = m.frame(Date.now());
  expect(f.list.rows[2]!.title.length).toBeGreaterThan(0);
  expect(text(f.header)).toContain(`▶ 3. ${LONG_TITLE}`);
  m.key("g");
  expect(text(m.frame(Date.now()).header)).toContain("1. Parse the configuration");
});

test("scrolled up in the Agent tab, new output says so on the last row; back at the end it follows again", () => {
  const { m, say } = model();
  for (let i = 0; i < 60; i++) say(`message ${i}`);
  m.frame(Date.now());
  m.key("pageup");
  const still = m.frame(Date.now());
  expect(still.body.following).toBe(false);
  expect(text(still.body.lines)).not.toContain("new output below");
  say("something new");
  const marked = m.frame(Date.now());
  expect(
    marked.body.lines
      .at(-1)!
      .map((s) => s.text)
      .join(""),
  ).toContain("▼ new output below");
  expect(marked.body.top).toBe(still.body.top); // the view holds still
  m.key("end");
  const back = m.frame(Date.now());
  expect(back.body.following).toBe(true);
  expect(text(back.body.lines)).not.toContain("new output below");
  expect(text(back.body.lines)).toContain("something new");
});

test("/ finds text in the Agent tab: the view goes to it, / Enter to the next one, and a miss is said", () => {
  const { m, say } = model();
  for (let i = 0; i < 60; i++) say(i === 10 || i === 40 ? `the NEEDLE is here (${i})` : `message ${i}`);
  m.frame(Date.now());
  const find = (q: string) => {
    m.key("/");
    for (const ch of q) m.key(ch);
    m.key("enter");
    return m.frame(Date.now());
  };
  const first = find("needle");
  expect(first.body.following).toBe(false);
  expect(first.body.lines[0]!.map((s) => s.text).join("")).toBe("the NEEDLE is here (10)");
  const next = find("");
  expect(next.body.lines[0]!.map((s) => s.text).join("")).toBe("the NEEDLE is here (40)");
  const again = find(""); // past the last: from the start again
  expect(again.body.lines[0]!.map((s) => s.text).join("")).toBe("the NEEDLE is here (10)");
  find("no such text");
  expect(text([m.frame(Date.now()).footer])).toContain("Not in this story's Agent tab: “no such text”");
});
