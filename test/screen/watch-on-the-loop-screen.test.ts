// `--watch` on the loop screen: once every story is done the loop waits for its pull request's checks. The header
// says it waits, and for what; the running story's Agent tab says it too, then what came back as a new story.
// Fed the events of a real engine run (real git, a scripted agent), then the two `--watch` events the runner
// writes, checked against their schema.
import { expect, test } from "bun:test";
import { LoopModel } from "../../src/screen/loop-model.ts";
import { LoopEvent } from "../../src/record/events.ts";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { makeRepo } from "../helpers/repo.ts";

test("Watching shows the wait and the running checks; Feedback ends the wait and says what was added", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n" });
  const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt")]);
  expect(r.state.status).toBe("done");
  const m = new LoopModel({ mode: "run", since: r.state.started_at });
  m.state({ ...r.state, status: "running" });
  m.resize(120, 30);
  for (const e of r.events.filter((e) => e.type !== "Complete")) m.event(e);
  const now = Date.now();
  const watching = LoopEvent.parse({
    type: "Watching",
    pull_request: 7,
    url: "https://github.com/acme/widgets/pull/7",
    checks: ["unit tests", "lint"],
    since: new Date(now).toISOString(),
    until: new Date(now + 30_000).toISOString(),
  });
  m.event(watching);
  const text = (lines: { text: string }[][]) => lines.map((l) => l.map((s) => s.text).join("")).join("\n");
  const watched = m.frame(now);
  expect(text(watched.header)).toMatch(/waiting (29|30)s/);
  expect(text(watched.header)).toContain("(pull request #7: unit tests, lint)");
  expect(text(watched.body.lines)).toContain("⏳ Watching pull request #7: unit tests, lint (--watch)");

  m.event(LoopEvent.parse({ type: "Feedback", pull_request: 7, note: "Pull request #7: 1 failing check, added to tasks.md as 2. Make the check `lint` pass" }));
  const after = m.frame(now + 1_000);
  expect(text(after.header)).not.toContain("waiting");
  // Wrapped at the body's width, between words.
  expect(text(after.body.lines).replaceAll("\n", " ")).toContain("↩ Pull request #7: 1 failing check, added to tasks.md as 2. Make the check `lint` pass");
}, 60_000);
