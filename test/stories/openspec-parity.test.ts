// wt-loop must count tasks exactly as OpenSpec does: run the real CLI over varied tasks.md files
// and compare its per-change totals with ours.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTasks } from "../../src/stories/checkbox.ts";
import { NODE_BIN } from "../helpers/cli.ts";
import { makeRepo } from "../helpers/repo.ts";

const VARIANTS: Record<string, string> = {
  nested: "## 1. A\n- [ ] 1.1 a\n  - [x] 1.1.1 nested\n    - [ ] deeper\n",
  bullets: "## 1. B\n* [x] star\n+ [ ] plus\n1. [x] numbered\n2) [ ] paren\n",
  marks: "## 1. C\n- [x] x\n- [X] X\n- [~] tilde\n- [-] dash\n- [] empty\n- [ x] spaced\n",
  fences: "## 1. D\n```md\n- [x] inside a fence\n- [ ] also inside\n```\n- [ ] outside\n",
  preamble: "- [x] before any heading\n- [ ] another\n## 1. E\n- [ ] e\n",
  unnumbered: "## Setup\n- [x] a\n## Build\n- [ ] b\n- [x] c\n",
  noise: "# T\n- not a task\n[x] no bullet\n- [x](link)\n- [ ] real\n",
};

describe("checkbox counting matches `openspec list --json`", () => {
  test("per-change totals and completed counts are identical", async () => {
    const files: Record<string, string> = { "openspec/config.yaml": "schema: spec-driven\n" };
    for (const [name, md] of Object.entries(VARIANTS)) {
      files[`openspec/changes/${name}/tasks.md`] = md;
      files[`openspec/changes/${name}/proposal.md`] = "# P\n";
    }
    const repo = makeRepo(files);
    const proc = Bun.spawnSync([join(NODE_BIN, "openspec"), "list", "--json"], {
      cwd: repo,
      env: { ...process.env, OPENSPEC_TELEMETRY: "0" },
    });
    expect(proc.exitCode).toBe(0);
    const theirs = JSON.parse(proc.stdout.toString()).changes as { name: string; completedTasks: number; totalTasks: number }[];
    expect(theirs.map((c) => c.name).sort()).toEqual(Object.keys(VARIANTS).sort());
    for (const c of theirs) {
      const ours = parseTasks(readFileSync(join(repo, "openspec/changes", c.name, "tasks.md"), "utf8"));
      expect({ name: c.name, total: ours.length, done: ours.filter((t) => t.done).length }).toEqual({
        name: c.name,
        total: c.totalTasks,
        done: c.completedTasks,
      });
    }
  });
});
