import { describe, expect, test } from "bun:test";
import { isComplete, parseStories } from "../../src/stories/story.ts";

describe("parseStories", () => {
  test("## N. Title sections become stories with their tasks", () => {
    const s = parseStories("# Tasks\n\n## 1. Setup\n- [x] 1.1 a\n- [ ] 1.2 b\n\n## 2. Build it\n- [x] 2.1 c\n");
    expect(s.map((x) => [x.id, x.title, x.tasks.length, isComplete(x)])).toEqual([
      ["1", "Setup", 2, false],
      ["2", "Build it", 1, true],
    ]);
  });

  test("without headings the whole file is one story titled by its # heading", () => {
    const s = parseStories("# My list\n- [ ] a\n- [ ] b\n");
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ id: "1", title: "My list" });
    expect(s[0]!.tasks).toHaveLength(2);
  });

  test("tasks before the first heading form their own story; prose sections make none", () => {
    const s = parseStories("- [ ] early\n## Notes\nno tasks here\n## Polish docs\n- [ ] x\n### Sub\n- [ ] y\n");
    expect(s.map((x) => [x.id, x.title, x.tasks.length])).toEqual([
      ["0", "Tasks before the first section", 1],
      ["polish-docs", "Polish docs", 2],
    ]);
  });

  test("duplicate ids are made distinct", () => {
    const s = parseStories("## 1. A\n- [ ] a\n## 1. B\n- [ ] b\n");
    expect(s.map((x) => x.id)).toEqual(["1", "1~2"]);
  });

  test("a story with no tasks is never complete", () => {
    expect(isComplete({ id: "1", title: "t", tasks: [] })).toBe(false);
  });
});
