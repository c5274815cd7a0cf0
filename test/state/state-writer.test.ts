// The runner writes its state several times an iteration, each an fsync; a write of the same text to
// the file it wrote is skipped. Whatever else happened to the file meanwhile — replaced by another
// writer, deleted by an agent's `git clean -fdx`, a link put in its place — the state is written again.
import { expect, test } from "bun:test";
import { lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readState, stateWriter, writeState } from "../../src/state/store.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

const setUp = () => {
  const d = tempDir();
  const path = join(d, ".claude/loop-state.json");
  return { d, path, write: stateWriter(path), state: sampleState({ worktree_path: d, status: "running" }) };
};
const inode = (path: string) => lstatSync(path).ino;

test("the same state twice: written once (the file is the same inode; every write renames a new one in)", async () => {
  const { path, write, state } = setUp();
  await write(state);
  const first = inode(path);
  await write({ ...state });
  expect(inode(path)).toBe(first);
  await write({ ...state, current_iteration: 3 });
  expect(inode(path)).not.toBe(first);
  expect((await readState(path))!.current_iteration).toBe(3);
});

test("replaced by another writer, deleted, or a link in its place: the same state is written again", async () => {
  const { d, path, write, state } = setUp();
  await write(state);
  await writeState(path, { ...state, status: "stopped" }); // another writer (a force-quit, a stop)
  await write(state);
  expect((await readState(path))!.status).toBe("running");

  rmSync(path); // an agent's git clean -fdx
  await write(state);
  expect((await readState(path))!.status).toBe("running");

  // Same text by hand, a new file: its inode tells it apart, and the write goes through the usual checks.
  writeFileSync(path, readFileSync(path, "utf8"));
  rmSync(path);
  const elsewhere = join(d, "elsewhere.json");
  writeFileSync(elsewhere, "{}");
  symlinkSync(elsewhere, path);
  await expect(write(state)).rejects.toThrow();
  expect(readFileSync(elsewhere, "utf8")).toBe("{}");
});
