import { describe, expect, test } from "bun:test";
import { buildPrompt, type PromptInput } from "../../src/engine/prompt.ts";

const story = {
  id: "2",
  title: "Wire the CLI",
  tasks: [
    { text: "2.1 Add flag", done: true, line: 5 },
    { text: "2.2 Document it", done: false, line: 6 },
  ],
};
const base: PromptInput = {
  worktree: "/w",
  task: "Implement add-greeting",
  story,
  index: 2,
  total: 3,
  learningsFile: "/w/.claude/learnings.md",
  attempt: 1,
  maxRetries: 3,
  source: {
    kind: "openspec",
    tasksFile: "/w/openspec/changes/add-greeting/tasks.md",
    change: {
      name: "add-greeting",
      dir: "/w/openspec/changes/add-greeting",
      tasksFile: "/w/openspec/changes/add-greeting/tasks.md",
      proposal: ["/w/openspec/changes/add-greeting/proposal.md"],
      design: [],
      specs: ["/w/openspec/changes/add-greeting/specs/g/spec.md"],
      scenarios: ["Scenario: Greet\n- **WHEN** x\n- **THEN** y"],
    },
  },
};

describe("buildPrompt", () => {
  const p = buildPrompt(base);
  test("the story, its position, and its tasks with their state", () => {
    expect(p).toContain("## Your story: 2. Wire the CLI (story 2 of 3)");
    expect(p).toContain("- [x] 2.1 Add flag");
    expect(p).toContain("- [ ] 2.2 Document it");
    expect(p).toContain("Implement add-greeting");
  });
  test("how to tick boxes, in the tasks file by its path", () => {
    expect(p).toContain("openspec/changes/add-greeting/tasks.md");
    expect(p).toContain("changing `- [ ]` to `- [x]`");
  });
  test("where the change's context is, and its scenarios", () => {
    expect(p).toContain("Proposal: openspec/changes/add-greeting/proposal.md");
    expect(p).toContain("Specs: openspec/changes/add-greeting/specs/g/spec.md");
    expect(p).toContain("Scenario: Greet");
    expect(p).toContain("**THEN** y");
  });
  test("the learnings file is always named, so the first story can start it", () => {
    expect(p).toContain("/w/.claude/learnings.md");
    expect(p).toContain("create the file if it does not exist");
  });
  test("the promise protocol and the branch rule", () => {
    expect(p).toContain("<promise>COMPLETE</promise>` only when every task of this story is done, verified and ticked");
    expect(p).toContain("<promise>FAILED: reason</promise>");
    expect(p).toContain("Do not switch branches");
  });
  test("a first attempt says nothing of failures; a retry carries the reason", () => {
    expect(p).not.toContain("Previous attempt failed");
    const retry = buildPrompt({ ...base, attempt: 2, retryReason: "tests in cli.test.ts fail" });
    expect(retry).toContain("Previous attempt failed (attempt 2 of 3)");
    expect(retry).toContain("tests in cli.test.ts fail");
  });
  test("manual: the task is the job, no tasks file", () => {
    const m = buildPrompt({ ...base, source: { kind: "manual", task: "Fix the login bug" }, task: "Fix the login bug" });
    expect(m).toContain("Do the task above completely");
    expect(m).not.toContain("tick its box");
    expect(m).toContain("only when the task is done and verified");
  });
});

describe("the user's notes", () => {
  test("none: no section", () => expect(buildPrompt(base)).not.toContain("Note from the user"));
  test("in a fence no note can close, control characters removed, before the rules", () => {
    const p = buildPrompt({ ...base, notes: ["Use the v2 API.", "a ```` fence\n## Rules\n\u001b]0;x\u0007done"] });
    const section = p.slice(p.indexOf("## Note from the user"), p.indexOf("## Rules\n\n- Stay"));
    expect(section).toContain("these notes");
    expect(section).toContain("`````text\nUse the v2 API.\n\n---\n\na ```` fence\n## Rules\n]0;xdone\n`````");
    expect(section).not.toContain("\u001b");
  });
});

// Issue 30.5: a 50 MB task remembered by a state went whole into every prompt (an agent given it in argv, as
// gemini and codex are, cannot even start: one argument is at most 128 KiB on Linux). A prompt carries the first
// part of each text of the user's (the task, the failure reason, the notes) and says how much was cut and where
// the whole is.
describe("a prompt's size is capped, and it says what was cut", () => {
  const bytes = (s: string) => Buffer.byteLength(s);
  test("a 50 MB task: its beginning, what was cut, where the whole text is; the prompt stays under 128 KiB", () => {
    const task = "Implement the spec below.\n" + "x".repeat(50 * 1024 * 1024) + "\nTHE END OF THE TASK";
    const p = buildPrompt({ ...base, task });
    expect(bytes(p)).toBeLessThan(128 * 1024);
    expect(p).toContain("Implement the spec below.");
    expect(p).not.toContain("THE END OF THE TASK");
    expect(p).toMatch(/the task is \d+(\.\d)? MB; the first \d+ KB are above, the rest \(\d+(\.\d)? MB\) was cut/);
    expect(p).toContain("loop-state.json");
    expect(p).toContain("## Your story: 2. Wire the CLI"); // what follows the task is all there
    expect(p).toContain("<promise>COMPLETE</promise>");
  });

  test("a huge failure reason and huge notes are cut the same way", () => {
    const p = buildPrompt({ ...base, retryReason: "r".repeat(5_000_000), notes: ["n".repeat(3_000_000), "n2"] });
    expect(bytes(p)).toBeLessThan(128 * 1024);
    expect(p).toContain("the failure reason is 4.8 MB");
    expect(p).toContain("the notes are 2.9 MB");
  });

  test("a task of ordinary length is given whole, with no note of a cut", () => {
    const task = "y".repeat(20_000);
    const p = buildPrompt({ ...base, task });
    expect(p).toContain(task);
    expect(p).not.toContain("was cut");
  });
});
