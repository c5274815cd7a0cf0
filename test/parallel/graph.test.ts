// The prerequisites graph of a real tasks file: what is refused at start (a prerequisite that names no
// story, a story after itself, a circle), and the waves `--dry-run` shows.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { graphProblems, graphRefusal, readyStories, waves } from "../../src/parallel/graph.ts";
import { loadStories } from "../../src/stories/source.ts";
import { tempDir, write } from "../helpers/repo.ts";

async function storiesOf(tasks: string) {
  const dir = tempDir();
  write(dir, { "tasks.md": tasks });
  return loadStories({ kind: "tasks-file", tasksFile: join(dir, "tasks.md") });
}

const FOUR = "# Tasks\n\n## 1. Schema\n- [ ] 1.1 a\n\n## 2. Parser\n- [ ] 2.1 b\n\n## 3. CLI (after 1, 2)\n- [ ] 3.1 c\n\n## 4. Docs\n- [ ] 4.1 d\n";
const ids = (wave: { id: string }[][]) => wave.map((w) => w.map((s) => s.id));

describe("the prerequisites of a tasks file", () => {
  test("a file whose prerequisites all name stories of it, with no circle, has no problem", async () => {
    expect(graphProblems(await storiesOf(FOUR))).toEqual([]);
    expect(graphRefusal(await storiesOf(FOUR), "tasks.md")).toBeNull();
  });

  test("a prerequisite that names no story: the heading, the id, the stories there are, what to fix", async () => {
    const stories = await storiesOf("## 1. Schema\n- [ ] a\n## Notes (after 1)\nprose only\n## 2. CLI (after 1, 7, notes)\n- [ ] b\n");
    expect(graphProblems(stories).map((p) => [p.kind, p.kind === "unknown" ? p.id : ""])).toEqual([
      ["unknown", "7"],
      ["unknown", "notes"],
    ]);
    const message = graphRefusal(stories, "tasks.md")!;
    expect(message).toContain("`## 2. CLI (after 1, 7, notes)` names 7, which is no story of tasks.md");
    expect(message).toContain("the stories are 1, 2");
    expect(message).toContain("; a section without checkbox tasks makes no story.");
    expect(message).toContain("Fix the id, or take it out of the parentheses");
  });

  test("a story after itself, and a circle of stories waiting for each other, each said once", async () => {
    const stories = await storiesOf(
      "## 1. A (after 3)\n- [ ] a\n## 2. B (after 1)\n- [ ] b\n## 3. C (after 2)\n- [ ] c\n## 4. D (after 4)\n- [ ] d\n## 5. E (after 6)\n- [ ] e\n## 6. F (after 5)\n- [ ] f\n## 7. G (after 1)\n- [ ] g\n",
    );
    const problems = graphProblems(stories);
    expect(problems.map((p) => (p.kind === "cycle" ? p.stories.map((s) => s.id) : p.kind === "self" ? p.story.id : p.id))).toEqual([
      "4",
      ["1", "3", "2"],
      ["5", "6"],
    ]);
    const message = graphRefusal(stories, "tasks.md")!;
    expect(message).toContain("`## 4. D (after 4)` names itself");
    expect(message).toContain("1 after 3, 3 after 2, 2 after 1: these wait for each other, so none of them could ever start");
    expect(message).toContain("5 after 6, 6 after 5");
    expect(message).not.toContain("7 after");
  });

  test("unnumbered headings are named by the id the loop shows", async () => {
    const stories = await storiesOf("## Set up the db\n- [ ] a\n## Seed data (after set-up-the-db)\n- [ ] b\n## Report (after seed)\n- [ ] c\n");
    expect(graphRefusal(stories, "tasks.md")).toContain(
      "`## Report (after seed)` names seed, which is no story of tasks.md (the stories are set-up-the-db, seed-data, report)",
    );
  });
});

describe("waves: what would run at once", () => {
  test("independent stories first, as many as lanes allow, in the file's order; then what they free", async () => {
    const stories = await storiesOf(FOUR);
    expect(ids(waves(stories, 3))).toEqual([["1", "2", "4"], ["3"]]);
    expect(ids(waves(stories, 2))).toEqual([
      ["1", "2"],
      ["3", "4"],
    ]);
    expect(ids(waves(stories, 1))).toEqual([["1"], ["2"], ["3"], ["4"]]);
  });

  test("a complete story counts as integrated; a chain runs one at a time", async () => {
    const stories = await storiesOf("## 1. A\n- [x] a\n## 2. B (after 1)\n- [ ] b\n## 3. C (after 2)\n- [ ] c\n## 4. D (after 1)\n- [ ] d\n");
    expect(ids(waves(stories, 4))).toEqual([["2", "4"], ["3"]]);
    expect(readyStories(stories, new Set(["1"]), new Set(["2"])).map((s) => s.id)).toEqual(["4"]);
  });

  test("stories a circle holds never appear (the start refuses such a file anyway)", async () => {
    const stories = await storiesOf("## 1. A (after 2)\n- [ ] a\n## 2. B (after 1)\n- [ ] b\n## 3. C\n- [ ] c\n");
    expect(ids(waves(stories, 2))).toEqual([["3"]]);
  });
});
