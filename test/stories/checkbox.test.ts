import { describe, expect, test } from "bun:test";
import { parseTaskLine, parseTasks } from "../../src/stories/checkbox.ts";

describe("parseTaskLine counts checkboxes as OpenSpec does", () => {
  test.each([
    ["- [ ] a", { text: "a", done: false }],
    ["- [x] a", { text: "a", done: true }],
    ["- [X] a", { text: "a", done: true }],
    ["* [x] star", { text: "star", done: true }],
    ["+ [ ] plus", { text: "plus", done: false }],
    ["1. [x] numbered", { text: "numbered", done: true }],
    ["2) [ ] paren", { text: "paren", done: false }],
    ["    - [x] nested", { text: "nested", done: true }],
    ["- [ x] spaced x", { text: "spaced x", done: true }],
    ["- [~] tilde", { text: "tilde", done: false }],
    ["- [-] dash", { text: "dash", done: false }],
    ["- [] empty", { text: "empty", done: false }],
  ])("%p", (line, want) => {
    expect(parseTaskLine(line, 1)).toEqual({ ...want, line: 1 });
  });

  test.each(["- no box", "[x] no bullet", "## 1. Heading", "- [x](link) is a link", "text - [ ] inline"])("not a task: %p", (line) => {
    expect(parseTaskLine(line, 1)).toBeNull();
  });

  test("line numbers are 1-based and code fences are counted like OpenSpec", () => {
    const tasks = parseTasks("# T\n- [ ] a\n```\n- [x] in fence\n```\n");
    expect(tasks.map((t) => [t.line, t.done])).toEqual([
      [2, false],
      [4, true],
    ]);
  });
});
