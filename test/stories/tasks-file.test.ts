import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { findTasksFile } from "../../src/stories/tasks-file.ts";
import { tempDir, write } from "../helpers/repo.ts";

describe("findTasksFile", () => {
  test("the worktree root's tasks.md wins over deeper ones", async () => {
    const d = tempDir();
    write(d, { "tasks.md": "- [ ] a\n", "a/tasks.md": "- [ ] b\n" });
    expect(await findTasksFile(d)).toBe(join(d, "tasks.md"));
  });

  test("shallowest first, then by path, whatever order the disk lists them", async () => {
    const d = tempDir();
    write(d, { "z/tasks.md": "", "b/c/tasks.md": "", "a/tasks.md": "", "m/tasks.md": "" });
    expect(await findTasksFile(d)).toBe(join(d, "a/tasks.md"));
  });

  test("depth 3 is found, depth 4 is not", async () => {
    const d = tempDir();
    write(d, { "a/b/c/d/tasks.md": "" });
    expect(await findTasksFile(d)).toBeNull();
    write(d, { "x/y/tasks.md": "" });
    expect(await findTasksFile(d)).toBe(join(d, "x/y/tasks.md"));
  });

  test("archive/ and node_modules/ are skipped", async () => {
    const d = tempDir();
    write(d, { "archive/tasks.md": "", "node_modules/pkg/tasks.md": "", "openspec/changes/archive/x/tasks.md": "" });
    expect(await findTasksFile(d)).toBeNull();
    write(d, { "docs/plan/tasks.md": "" });
    expect(await findTasksFile(d)).toBe(join(d, "docs/plan/tasks.md"));
  });
});
