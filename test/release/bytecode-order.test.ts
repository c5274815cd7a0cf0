// The start-up profile (scripts/release/bytecode-order.ts) refuses a run that failed: its profile would lay out an error path.
import { expect, test } from "bun:test";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordBytecodeOrder } from "../../scripts/release/bytecode-order.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

function failing(): string {
  const path = join(tempDir(), "wt-loop");
  writeFileSync(path, "#!/bin/sh\necho 'no loop here' >&2\nexit 1\n");
  chmodSync(path, 0o755);
  return path;
}

test("a profiled command that fails stops the recording, named", () => {
  expect(() => recordBytecodeOrder(failing(), tempDir())).toThrow(/wt-loop status exited 1: no loop here/);
});

// A build run from a git hook has GIT_DIR (and its kin) set: the scratch repositories must be made in their own
// folders, not in the repository the hook runs for. (Set in a child's environment: Bun's spawn passes the
// process's own environment, not process.env's changes.)
test("the scratch repositories ignore the build's GIT_DIR and GIT_WORK_TREE", () => {
  const repo = makeRepo();
  const head = git(repo, "rev-parse", "HEAD");
  const dir = tempDir();
  const script = `import { recordBytecodeOrder } from ${JSON.stringify(join(import.meta.dir, "../../scripts/release/bytecode-order.ts"))};
try { recordBytecodeOrder(${JSON.stringify(failing())}, ${JSON.stringify(dir)}); } catch (err) { console.log(String(err)); }`;
  const r = Bun.spawnSync([process.execPath, "-e", script], { env: { ...process.env, GIT_DIR: join(repo, ".git"), GIT_WORK_TREE: repo }, stderr: "pipe" });
  expect(r.stdout.toString()).toContain("wt-loop status exited 1");
  for (const scratch of ["ours", "seed"]) expect(existsSync(join(dir, scratch, ".git/HEAD"))).toBe(true);
  expect(git(repo, "rev-parse", "HEAD")).toBe(head);
});
