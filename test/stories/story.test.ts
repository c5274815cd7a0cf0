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

  test("a heading names its prerequisites at its end: `## 3. CLI (after 1, 2)` is story 3, titled CLI, after 1 and 2", () => {
    const s = parseStories(
      "## 1. Schema\n- [ ] a\n## 2. Parser\n- [ ] b\n## 3. CLI (after 1, 2)\n- [ ] c\n## 4.2) Docs (After 3 and 1)\n- [ ] d\n" +
        "## Set up the db (after 1)\n- [ ] e\n## Polish (after set-up-the-db,4.2)\n- [ ] f\n",
    );
    expect(s.map((x) => [x.id, x.title, x.after ?? []])).toEqual([
      ["1", "Schema", []],
      ["2", "Parser", []],
      ["3", "CLI", ["1", "2"]],
      ["4.2", "Docs", ["3", "1"]],
      ["set-up-the-db", "Set up the db", ["1"]],
      ["polish", "Polish", ["set-up-the-db", "4.2"]],
    ]);
  });

  test("parentheses that are not a list of ids stay in the title; a story without any has no prerequisites", () => {
    const s = parseStories(
      "## 1. Cleanup (after the migration)\n- [ ] a\n## 2. Retry (later)\n- [ ] b\n## 3. (after 1)\n- [ ] c\n## 4. Wait (after )\n- [ ] d\n",
    );
    expect(s.map((x) => [x.id, x.title, x.after])).toEqual([
      ["1", "Cleanup (after the migration)", undefined],
      ["2", "Retry (later)", undefined],
      ["3", "(after 1)", undefined],
      ["4", "Wait (after )", undefined],
    ]);
  });

  test("a heading names its model at its end, before or after its prerequisites; (agent: …) is read too, to be refused at start", () => {
    const s = parseStories(
      "## 1. Migrate the schema (model: opus)\n- [ ] a\n## 2. CLI (after 1) (model: claude-sonnet-4-5)\n- [ ] b\n" +
        "## 3. Docs (Model: haiku) (after 1, 2)\n- [ ] c\n## 4. Port (agent: codex)\n- [ ] d\n## 5. Plain\n- [ ] e\n",
    );
    expect(s.map((x) => [x.id, x.title, x.after ?? [], x.model ?? null, x.agent ?? null])).toEqual([
      ["1", "Migrate the schema", [], "opus", null],
      ["2", "CLI", ["1"], "claude-sonnet-4-5", null],
      ["3", "Docs", ["1", "2"], "haiku", null],
      ["4", "Port", [], null, "codex"],
      ["5", "Plain", [], null, null],
    ]);
  });

  test("parentheses that are not one model name stay in the title", () => {
    const s = parseStories("## 1. Pick (model: a b)\n- [ ] a\n## 2. Train the model: faster\n- [ ] b\n## 3. Size (model:)\n- [ ] c\n");
    expect(s.map((x) => [x.title, x.model ?? null])).toEqual([
      ["Pick (model: a b)", null],
      ["Train the model: faster", null],
      ["Size (model:)", null],
    ]);
  });

  test("a story with no tasks is never complete", () => {
    expect(isComplete({ id: "1", title: "t", tasks: [] })).toBe(false);
  });
});
