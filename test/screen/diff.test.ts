// The Files tab's diff is read from the file the engine wrote when the attempt ended: its start when it is big
// (with where the rest is), a sentence when it is gone — never a stack trace, never the worktree's diff now.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { attemptDiff } from "../../src/screen/diff.ts";
import { tempDir } from "../helpers/repo.ts";

test("a big diff is shown from its start up to the limit, cut on a whole character, naming the file with the rest", () => {
  const file = join(tempDir("diff-"), "iter-001.diff");
  const diff = `diff --git a/a.txt b/a.txt\n+${"é".repeat(100)}\n`;
  writeFileSync(file, diff);
  const limit = 40; // inside an é (two bytes each)
  const text = attemptDiff(file, limit);
  expect(text.startsWith("diff --git a/a.txt b/a.txt\n+é")).toBe(true);
  expect(text).not.toContain("\uFFFD");
  expect(text).toContain(`the diff is cut here (${limit} of ${Buffer.byteLength(diff)} bytes): the whole of it is ${file}`);
  expect(attemptDiff(file)).toBe(diff.replace(/\n$/, ""));
});

test("a diff file that is gone or empty is said", () => {
  const dir = tempDir("diff-");
  expect(attemptDiff(join(dir, "gone.diff"))).toContain(`The diff in ${join(dir, "gone.diff")} cannot be read`);
  writeFileSync(join(dir, "empty.diff"), "");
  expect(attemptDiff(join(dir, "empty.diff"))).toBe(`The diff in ${join(dir, "empty.diff")} is empty.`);
});
