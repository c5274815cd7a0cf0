// `wt-loop history | head -1` and `wt-loop monitor | head`: the reader goes away, and wt-loop ends
// quietly (exit 0, nothing on stderr) instead of dying with an EPIPE stack trace.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

function finishedLoop(): string {
  const repo = makeRepo();
  mkdirSync(join(repo, ".claude"));
  const iterations = Array.from({ length: 3000 }, (_, i) => sampleIteration(i + 1));
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(sampleState({ worktree_path: repo, worktree_name: "repo", iterations })));
  const events = Array.from({ length: 20000 }, (_, i) =>
    JSON.stringify({ ts: "2026-11-21T10:00:01.000Z", type: "StoryEvent", story_id: "1", event: { type: "Message", text: `message ${i}` } }),
  );
  writeFileSync(join(repo, ".claude/loop-events.jsonl"), events.join("\n") + "\n");
  return repo;
}

test.each([["history"], ["history --json"], ["status --json"], ["monitor"]])("`wt-loop %s | head -1` ends quietly", async (cmd) => {
  const repo = finishedLoop();
  const script = `"${process.execPath}" "${CLI}" ${cmd} | head -1 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`;
  const p = Bun.spawn(["bash", "-c", script], { cwd: repo, env: baseEnv(), stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(err).toBe("");
  expect(out.trim()).toBe("exit=0");
});

/**
 * Many worktrees, written as `git worktree add` writes them (the admin folder and the `.git` file), so that
 * `list` prints more than a pipe holds: it writes with console.log and creates no process.stdout (start-up).
 */
function manyWorktrees(count: number): string {
  const repo = makeRepo();
  const head = git(repo, "rev-parse", "HEAD");
  const root = tempDir("many-worktrees-");
  for (let i = 0; i < count; i++) {
    const id = `worktree-${String(i).padStart(4, "0")}-${"x".repeat(200)}`; // long names: a long table
    const path = join(root, id);
    const admin = join(repo, ".git/worktrees", id);
    mkdirSync(path);
    mkdirSync(admin, { recursive: true });
    writeFileSync(join(path, ".git"), `gitdir: ${admin}\n`);
    writeFileSync(join(admin, "gitdir"), `${path}/.git\n`);
    writeFileSync(join(admin, "commondir"), "../..\n");
    writeFileSync(join(admin, "HEAD"), `${head}\n`);
  }
  return repo;
}

test.each([["list"], ["list --json"]])("`wt-loop %s | head -1` ends quietly", async (cmd) => {
  const repo = manyWorktrees(600);
  const all = Bun.spawnSync(["bash", "-c", `"${process.execPath}" "${CLI}" ${cmd} | wc -c`], { cwd: repo, env: baseEnv() });
  expect(Number(all.stdout.toString())).toBeGreaterThan(128 * 1024); // twice what a pipe holds
  const script = `"${process.execPath}" "${CLI}" ${cmd} | head -1 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`;
  const p = Bun.spawn(["bash", "-c", script], { cwd: repo, env: baseEnv(), stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(err).toBe("");
  expect(out.trim()).toBe("exit=0");
});
