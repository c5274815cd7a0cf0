import { describe, expect, test } from "bun:test";
import { issueTasks, prerequisites, searchTasks } from "../../src/stories/issue-tasks.ts";
import { parseStories } from "../../src/stories/story.ts";

const issue = (body: string, title = "Add a login page") => ({ number: 7, title, body, url: "https://github.com/acme/widgets/issues/7" });
const stories = (body: string) =>
  parseStories(issueTasks(issue(body)).markdown).map((s) => [s.id, s.title, s.tasks.map((t) => `${t.done ? "x" : " "} ${t.text}`)]);

describe("an issue's work as stories", () => {
  test.each([
    [
      "a task list: one story per item",
      "Intro\r\n\r\n- [ ] Route\r\n- [x] Form\r\n- [ ] Tests (after 1)\r\n",
      "items",
      [
        ["1", "Route", ["  Route"]],
        ["2", "Form", ["x Form"]],
        ["3", "Tests", ["  Tests (after 1)"]],
      ],
    ],
    [
      "nested boxes belong to their item",
      "- [ ] Route\n  - [ ] GET\n  - [ ] POST\n- [ ] Form\n",
      "items",
      [
        ["1", "Route", ["  Route", "  GET", "  POST"]],
        ["2", "Form", ["  Form"]],
      ],
    ],
    [
      "numbered sections keep their numbers",
      "## 1. Setup\n- [ ] a\n- [ ] b\n\n## 2. Build (after 1)\nprose\n- [ ] c\n\n## Notes\nno boxes\n",
      "sections",
      [
        ["1", "Setup", ["  a", "  b"]],
        ["2", "Build", ["  c"]],
      ],
    ],
    [
      "any heading level groups",
      "### Backend\n- [ ] api\n### Frontend\n* [ ] page\n",
      "sections",
      [
        ["backend", "Backend", ["  api"]],
        ["frontend", "Frontend", ["  page"]],
      ],
    ],
    ["a box in a code fence is an example, not work", "```\n- [ ] not me\n```\n- [ ] me\n", "items", [["1", "me", ["  me"]]]],
    ["no box: the whole issue is one story", "Just prose.", "whole", [["1", "Add a login page", ["  Resolve issue #7: Add a login page"]]]],
  ])("%s", (_, body, shape, expected) => {
    expect(issueTasks(issue(body)).shape).toBe(shape as any);
    expect(stories(body)).toEqual(expected as any);
  });

  test("the prerequisite of an item is kept for the graph", () => {
    const s = parseStories(issueTasks(issue("- [ ] A\n- [ ] B (after 1)\n")).markdown);
    expect(s[1]!.after).toEqual(["1"]);
  });

  test("a title with a line break or heading marks stays one heading", () => {
    const md = issueTasks(issue("x", "Two\nlines ##")).markdown;
    expect(parseStories(md)).toHaveLength(1);
    expect(md.split("\n")[0]).toBe("# Issue #7: Two lines ##");
  });
});

describe("one story per issue of a search", () => {
  const found = [
    { number: 3, title: "Schema", body: "- [ ] table\n- [ ] migration", url: "u3" },
    { number: 12, title: "API", body: "Comes after #3 and after #99.", url: "u12" },
  ];
  test("ids are issue numbers, `after #N` of a found issue is a prerequisite, others are said", () => {
    const r = searchTasks(found, "Issues: label:wt-loop");
    const s = parseStories(r.markdown);
    expect(s.map((x) => [x.id, x.title, x.after ?? [], x.tasks.map((t) => t.text)])).toEqual([
      ["3", "Schema", [], ["table", "migration"]],
      ["12", "API", ["3"], ["Resolve issue #12: API"]],
    ]);
    expect(r.outside).toEqual([{ issue: 12, waitsFor: 99 }]);
  });
  test("prerequisites are read outside code only", () => {
    expect(prerequisites("after #4\n```\nafter #5\n```\nAfter #6")).toEqual([4, 6]);
  });
});
