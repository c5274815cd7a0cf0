// A failed attempt that left the tree as the story's snapshot has it (changes() found the same tree) is reverted
// without rewriting a file (docs/performance.md): only the index is put back, and only when it was written since the
// snapshot. What the agent staged is unstaged, whatever it did to the index; the user's work stays as it was.
import { expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { stashCheckpoint } from "../../src/checkpoint/stash.ts";
import { git, makeRepo } from "../helpers/repo.ts";

async function attempt(agent: (repo: string) => void) {
  const repo = makeRepo({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
  writeFileSync(join(repo, "a.txt"), "the user's work\n");
  writeFileSync(join(repo, "b.txt"), "staged by the user\n");
  git(repo, "add", "b.txt");
  writeFileSync(join(repo, "new.txt"), "the user's new file\n");
  const status = git(repo, "status", "--porcelain");
  const staged = git(repo, "diff", "--cached");
  const cp = stashCheckpoint(new Git({ cwd: repo, timeoutMs: 30_000 }), "x");
  await cp.init();
  await cp.ensure("1");
  agent(repo);
  const measured = await cp.changes();
  await cp.revert();
  return { repo, status, staged, measured };
}

test.each<[string, (repo: string) => void]>([
  ["did nothing", () => {}],
  ["staged the user's change and unstaged theirs", (r) => (git(r, "add", "a.txt"), git(r, "reset", "-q", "--", "b.txt"))],
  [
    "staged a change it then undid in the tree",
    (r) => (writeFileSync(join(r, "c.txt"), "agent\n"), git(r, "add", "c.txt"), writeFileSync(join(r, "c.txt"), "c\n")),
  ],
  ["ran git status (the index's stat data refreshed)", (r) => void git(r, "-c", "core.untrackedCache=false", "status")],
  ["rewrote a file with its own content", (r) => writeFileSync(join(r, "a.txt"), "the user's work\n")],
])("an attempt that %s: the tree and the index are the user's again", async (_what, agent) => {
  const { repo, status, staged, measured } = await attempt(agent);
  expect(measured.progress).toBe(false);
  expect(git(repo, "status", "--porcelain")).toBe(status);
  expect(git(repo, "diff", "--cached")).toBe(staged);
});

test("an attempt that changed the tree is reverted whole: the agent's file goes, the user's work comes back", async () => {
  const { repo, status, staged, measured } = await attempt((r) => {
    writeFileSync(join(r, "a.txt"), "the agent's\n");
    writeFileSync(join(r, "agent.txt"), "x\n");
    git(r, "add", "-A");
  });
  expect(measured.progress).toBe(true);
  expect(git(repo, "status", "--porcelain")).toBe(status);
  expect(git(repo, "diff", "--cached")).toBe(staged);
});

test("an attempt that changed nothing: the user's changed file is not written again (an editor holding it sees no change)", async () => {
  let before = "";
  const { repo } = await attempt((r) => {
    const st = statSync(join(r, "a.txt"));
    before = `${st.ino}:${st.mtimeMs}:${st.ctimeMs}`;
  });
  const st = statSync(join(repo, "a.txt"));
  expect(`${st.ino}:${st.mtimeMs}:${st.ctimeMs}`).toBe(before);
});
