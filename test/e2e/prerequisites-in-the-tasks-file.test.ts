// Prerequisites in the tasks file's headings (`## 3. CLI (after 1, 2)`, docs/parallel.md): a circle or an id
// that names no story is refused at start, with or without --parallel, before anything is written.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const CIRCLE = "# Tasks\n\n## 1. Schema (after 3)\n- [ ] 1.1 a\n\n## 2. Parser\n- [ ] 2.1 b\n\n## 3. CLI (after 1, 2)\n- [ ] 3.1 c\n";
const agent = ["--agent", "command", "--agent-cmd", "true"];

const nothingChanged = (repo: string, head: string) => {
  expect(existsSync(join(repo, ".claude"))).toBe(false);
  expect(git(repo, "branch", "--show-current")).toBe("main");
  expect(git(repo, "branch", "--list")).toBe("* main");
  expect(git(repo, "rev-parse", "HEAD")).toBe(head);
  expect(git(repo, "status", "--porcelain")).toBe("");
  expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
  expect(readFileSync(join(repo, ".git/info/exclude"), "utf8")).not.toContain("wt-loop");
};

describe("prerequisites that can never be met", () => {
  test.each([[["--parallel", "2"]], [[]], [["--dry-run", "--parallel", "3"]]])(
    "start %p with a circle: the headings named, what to fix, nothing changed",
    async (args) => {
      const repo = makeRepo({ "tasks.md": CIRCLE });
      const head = git(repo, "rev-parse", "HEAD");
      const r = await wtLoop(["start", "--plain", "--terminal", "inline", ...agent, ...args], { cwd: repo });
      expect([r.code, r.stderr.includes("    at ")]).toEqual([1, false]);
      expect(r.stderr).toContain("tasks.md: the prerequisites in its headings");
      expect(r.stderr).toContain("1 after 3, 3 after 1: these wait for each other, so none of them could ever start. Take one of these prerequisites out.");
      expect(r.stdout).not.toContain("Dry run");
      nothingChanged(repo, head);
    },
  );

  test("a prerequisite that names no story: refused with the stories there are", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Schema\n- [ ] a\n\n## 2. CLI (after 1, 3)\n- [ ] b\n" });
    const head = git(repo, "rev-parse", "HEAD");
    const r = await wtLoop(["start", "--plain", "--terminal", "inline", ...agent, "--parallel", "2"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("`## 2. CLI (after 1, 3)` names 3, which is no story of tasks.md (the stories are 1, 2). Fix the id");
    nothingChanged(repo, head);
  });
});

const FOUR =
  "# Tasks\n\n## 1. Schema\n- [ ] 1.1 a\n\n## 2. Parser\n- [ ] 2.1 b\n\n## 3. CLI (after 1, 2)\n- [ ] 3.1 c\n\n## 4. Docs\n- [x] 4.1 d\n\n## 5. Release (after 3)\n- [ ] 5.1 e\n";

describe("--dry-run shows the graph", () => {
  test("--parallel 3: each story with its prerequisites, and the waves that would run at once; nothing changed", async () => {
    const repo = makeRepo({ "tasks.md": FOUR });
    const head = git(repo, "rev-parse", "HEAD");
    const r = await wtLoop(["start", "--plain", ...agent, "--dry-run", "--parallel", "3"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  ○ 1. Schema\n");
    expect(r.stdout).toContain("  ○ 3. CLI  (after 1, 2)\n");
    expect(r.stdout).toContain("  ✔ 4. Docs\n");
    expect(r.stdout).toContain("Parallel:  up to 3 stories at once, each in its own lane; a story starts once the stories it names are integrated");
    expect(r.stdout).toContain("Waves (what would run at once, if every story took as long):\n  1. 1 Schema · 2 Parser\n  2. 3 CLI\n  3. 5 Release\n");
    nothingChanged(repo, head);
  });

  test("--parallel 1: the file's order stands, and a story placed before one it names is pointed out", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. CLI (after 2)\n- [ ] 1.1 a\n\n## 2. Schema\n- [ ] 2.1 b\n" });
    const r = await wtLoop(["start", "--plain", ...agent, "--dry-run"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  ○ 1. CLI  (after 2)\n");
    expect(r.stdout).not.toContain("Waves");
    expect(r.stdout).toContain(
      "Order:     one story after another, in the file's order (prerequisites count with --parallel above 1): 1 comes before 2, which it names",
    );
  });
});
