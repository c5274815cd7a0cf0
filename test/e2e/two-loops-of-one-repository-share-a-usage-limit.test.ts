// One account, one wait across loops (docs/parallel.md, "The limit file"): two real `wt-loop start` runs in two
// worktrees of one repository, each with the real Claude Code binary against its own scripted Messages API.
// Loop A is refused for a usage limit; loop B, started meanwhile in the other worktree, reads the repository's
// limits file and does not run its agent before the reset — so it spends no refused run of its own.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readEvents, readJson, spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { apiError, claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { refuseTimes } from "../helpers/scripted-server.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const TASKS = "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n";
const story = (wt: string): Turn[] => [
  { tool: "Write", input: { file_path: join(wt, "greet.txt"), content: "greet.txt\n" } },
  { tool: "Edit", input: { file_path: join(wt, "tasks.md"), old_string: "- [ ] 1.1 Write greet.txt", new_string: "- [x] 1.1 Write greet.txt" } },
  { text: "Done. <promise>COMPLETE</promise>" },
];
const env = (server: ModelServer) => ({ ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}`, WT_LOOP_WAIT_SCALE: "0.001" });
const START = ["start", "--plain", "--terminal", "inline", "--on-complete", "keep"];

test("loop A refused for a usage limit: loop B of the same repository and agent waits for the same reset, refused by nothing", async () => {
  const repo = makeRepo({ "tasks.md": TASKS });
  const other = join(tempDir(), "other");
  git(repo, "worktree", "add", "-q", "-b", "other", other);
  // The reset is taken when the refusal is made (a loaded machine's start can outlast one fixed up front).
  let reset = 0;
  const a = startModelServer(
    [story(repo)],
    refuseTimes(
      1,
      () => true,
      () => {
        reset = Math.floor(Date.now() / 1000) + 20;
        return apiError(429, "rate_limit_error", `Claude AI usage limit reached|${reset}`, { "x-should-retry": "false" });
      },
    ),
  );
  const b = startModelServer([story(other)]);
  try {
    const loopA = spawnWtLoop(START, { cwd: repo, env: env(a) });
    const limits = join(repo, ".git/wt-loop/limits/claude.json");
    await waitFor("loop A to note the limit for the repository", () => existsSync(limits), 60_000, { whileRunning: loopA });
    expect(Date.parse(JSON.parse(readFileSync(limits, "utf8")).until)).toBeGreaterThanOrEqual(reset * 1000);
    expect(reset * 1000).toBeGreaterThan(Date.now()); // B starts while the limit is in force

    const loopB = await wtLoop(START, { cwd: other, env: env(b), timeoutMs: 120_000 });
    expect(loopB.code).toBe(0);
    expect(readJson<{ status: string }>(join(other, ".claude/loop-state.json")).status).toBe("done");
    expect(b.log.filter((l) => l.refused)).toEqual([]); // B never asked while the limit held
    expect(b.log[0]!.at).toBeGreaterThanOrEqual(reset * 1000);
    expect(readEvents(other).some((e) => e.type === "Waiting")).toBe(true); // and it said it waited

    expect(await loopA.exited).toBe(0);
    expect(readJson<{ status: string }>(join(repo, ".claude/loop-state.json")).status).toBe("done");
    expect(a.log.find((l) => !l.refused)!.at).toBeGreaterThanOrEqual(reset * 1000);
  } finally {
    a.stop();
    b.stop();
  }
}, 180_000);
