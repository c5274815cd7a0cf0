// What wt-loop writes into a pull request: the body from its records between hidden markers (a later run replaces
// only that part), the template first, `Closes`/`Part of` by the ending, and per story the proof a reviewer reads.
import { describe, expect, test } from "bun:test";
import { BODY_END, BODY_START, prBody, prSection, prTitle } from "../../src/github/pr-text.ts";
import { storiesOf } from "../../src/record/receipt.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

const github = (n = 7) => ({ host: "github.com", repo: "acme/widgets", search: null, issues: [{ number: n, title: "Add a login page", url: "u" }] });
const review = {
  reviewer: "claude" as const,
  verdict: "approve" as const,
  reason: null,
  runs: 1,
  tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
  cost_usd: 0.5,
  duration_ms: 1000,
  log_file: "/l",
  diff_file: "/d",
  put_back: [],
};

describe("prBody", () => {
  const section = `${BODY_START}\nours\n${BODY_END}`;
  test("a new pull request: the repository's template, ours below it", () => {
    expect(prBody(null, "## What changed\n\n", section)).toBe(`## What changed\n\n${section}`);
    expect(prBody(null, null, section)).toBe(section);
    expect(prBody(null, "  \n", section)).toBe(section);
  });
  test("an update replaces only our part; a body a person rewrote without it gets ours appended", () => {
    const before = `Intro.\n\n${BODY_START}\nold\n${BODY_END}\n\nA reviewer's note.`;
    expect(prBody(before, "template, ignored", section)).toBe(`Intro.\n\n${section}\n\nA reviewer's note.`);
    expect(prBody("All mine.\n", null, section)).toBe(`All mine.\n\n${section}`);
  });
});

describe("prTitle", () => {
  test("the issue's title, else the change, else the task's first line (shortened)", () => {
    expect(prTitle(sampleState({ github: github() }))).toBe("Add a login page");
    expect(prTitle(sampleState({ change: "add-login" }))).toBe("add-login");
    expect(prTitle(sampleState({ task: "\nFix the parser\nmore" }))).toBe("Fix the parser");
    expect(prTitle(sampleState({ task: "x".repeat(200) }))).toHaveLength(118);
  });
});

describe("prSection", () => {
  const iterations = [
    sampleIteration(1, {
      story_id: "1",
      story_title: "Setup",
      outcome: "rejected",
      reason: "verify failed",
      commits: [],
      verify: { exit_code: 1, duration_ms: 2000, timed_out: false, log_file: "/v" },
    }),
    sampleIteration(2, {
      story_id: "1",
      story_title: "Setup",
      attempt: 2,
      outcome: "complete",
      reason: null,
      commits: ["a".repeat(40)],
      verify: { exit_code: 0, duration_ms: 3000, timed_out: false, log_file: "/v" },
      review,
    }),
    sampleIteration(3, { story_id: "2", story_title: "Build", outcome: "failed", reason: "the agent gave up", commits: [] }),
  ];
  const state = (over = {}) =>
    sampleState({ status: "stuck", stories_completed: 1, iterations, verify: "npm test", github: github(), reason: "Story 2 is stuck", ...over });
  const plan = [
    { id: "1", title: "Setup", complete: true },
    { id: "2", title: "Build", complete: false },
  ];
  const files = new Map([["a".repeat(40), ["src/a.ts", "README.md"]]]);

  test("per story: commits, files, attempts, verify, the reviewer's verdict; what is left and why; `Part of` while unfinished", () => {
    const text = prSection({ state: state(), earlier: [], plan, files });
    expect(text.startsWith(`${BODY_START}\nPart of #7\n`)).toBe(true);
    expect(text.endsWith(BODY_END)).toBe(true);
    expect(text).toContain("> Story 2 is stuck");
    expect(text).toContain("- commits: `aaaaaaaaaaaa`\n- files changed: `README.md`, `src/a.ts`");
    expect(text).toContain("- attempts: #1 rejected (verify failed); #2 complete");
    expect(text).toContain("- verify `npm test`: attempt 1 failed (exit 1) in 2s; attempt 2 passed in 3s");
    expect(text).toContain("- review (claude): approve");
    expect(text).toContain("- 2. Build — failed after 1 attempt: the agent gave up");
  });

  test("`Closes #N` at done; the attempts of the earlier runs it continues are in it; the completion's own words are not", () => {
    const done = state({
      status: "done",
      stories_completed: 2,
      iterations: iterations.slice(2).map((i) => ({ ...i, outcome: "complete" as const, commits: ["b".repeat(40)] })),
      reason: "All 2 stories are complete. Kept the branch ralph/wt. Pushed it; opened pull request #8.",
      completion_message: "Kept the branch ralph/wt. Pushed it; opened pull request #8.",
      earlier_stories: storiesOf(sampleState({ iterations: iterations.slice(0, 2) })),
    });
    const text = prSection({ state: done, earlier: iterations.slice(0, 2), plan: plan.map((p) => ({ ...p, complete: true })), files });
    expect(text).toContain("Closes #7");
    expect(text).not.toContain("Part of");
    expect(text).toContain("> All 2 stories are complete\n");
    expect(text).not.toContain("pull request #8");
    expect(text).toContain("- commits: `aaaaaaaaaaaa`"); // story 1, from the earlier run
    expect(text).toContain("3 iterations");
    expect(text).not.toContain("Left unfinished");
  });
});
