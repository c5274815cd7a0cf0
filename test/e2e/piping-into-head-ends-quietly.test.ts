// `wt-loop history | head -1` and `wt-loop monitor | head`: the reader goes away, and wt-loop ends
// quietly (exit 0, nothing on stderr) instead of dying with an EPIPE stack trace.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { makeRepo } from "../helpers/repo.ts";
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
