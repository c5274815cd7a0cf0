// `--pr`: what a pull request asks for, as stories numbered after the tasks file's last one.
import { expect, test } from "bun:test";
import { feedbackStories, type Feedback } from "../../src/github/pr-feedback.ts";
import { parseStories } from "../../src/stories/story.ts";

const pull = { number: 45, state: "open", html_url: "u", head: { ref: "ralph/x", sha: "a".repeat(40) } };
const TASKS = "# Tasks\n\n## 1. A\n- [x] a\n\n## 7. B\n- [x] b\n";

test("a failing check and a review: two stories after story 7, each box a line, the output quoted (no box or heading in it counts)", () => {
  const f: Feedback = {
    pull,
    failing: [{ name: "unit", output: "FAIL x\n```\n- [ ] not a task\n## 3. nor a story" }],
    changes: [
      {
        user: "ana",
        body: "Two\nthings.",
        comments: [
          { path: "a.ts", line: 3, body: "const" },
          { path: "b.ts", line: null, body: "rename" },
        ],
      },
    ],
  };
  const { text, titles } = feedbackStories(TASKS, f);
  expect(titles).toEqual(["8. Make the check `unit` pass (pull request #45)", "9. Address the changes @ana requested (pull request #45)"]);
  const stories = parseStories(`${TASKS}\n${text}`).filter((s) => Number(s.id) > 7);
  expect(text).toContain("> FAIL x\n> ```\n> - [ ] not a task");
  expect(stories.map((s) => s.tasks.map((t) => t.text))).toEqual([
    ["Find why `unit` fails on the pull request's head and fix it"],
    ["Two things.", "`a.ts:3`: const", "`b.ts`: rename"],
  ]);
});

test("nothing asked: nothing to add", () => {
  expect(feedbackStories(TASKS, { pull, failing: [], changes: [] })).toEqual({ text: "", titles: [] });
});
