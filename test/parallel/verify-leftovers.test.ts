// `--verify` under --parallel writes files (a report, a build output) in the main worktree too, where it runs
// on every integrated tree: they must not stop the next integration (docs/parallel.md, "What --verify writes").
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine } from "../helpers/engine.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const worktrees = (repo: string) =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree ")).length;
const why = (r: Awaited<ReturnType<typeof runEngine>>) =>
  `${r.state.reason} ${JSON.stringify(r.state.iterations.map((i) => [i.story_id, i.outcome, i.reason]))}`;

describe("--parallel: what --verify writes in the main worktree", () => {
  test("a verify that writes a report only on the integrated tree: every story is integrated, the last report is committed", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3) });
    // Each story finishes only after the one before it is integrated: three integrations, one after another.
    const waitFor = (id: number) => `i=0; while [ ! -f "${repo}/s${id}.txt" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done\n`;
    const agent = laneAgent({ "2": waitFor(1) + TICK_AND_WRITE, "3": waitFor(2) + TICK_AND_WRITE });
    // No lane holds both s1 and s2 (each is made before the story before it is integrated): only the main worktree writes it.
    const verify = "if [ -f s1.txt ] && [ -f s2.txt ]; then mkdir -p coverage && ls s*.txt > coverage/report.txt; fi";
    const r = await runEngine(repo, [], { parallel: 3, agentCmd: agent.cmd, env: agent.env, verify });
    expect([r.state.status, why(r)]).toEqual(["done", expect.any(String)]);
    for (const id of ["1", "2", "3"]) expect(readFileSync(join(repo, `s${id}.txt`), "utf8")).toBe(`story ${id}\n`);
    expect(git(repo, "show", "HEAD:coverage/report.txt")).toBe("s1.txt\ns2.txt\ns3.txt");
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(worktrees(repo)).toBe(1);
  }, 180_000);

  test("a verify that writes files and fails on the integrated tree: the story goes again, its leftovers stop nothing", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    // Each story passes alone; together s2.txt must know story 1. When it fails it leaves a log.
    const verify = `if [ -f s1.txt ] && [ -f s2.txt ]; then grep -q knows-1 s2.txt || { echo 's2.txt does not know story 1' | tee failed.log; exit 1; }; fi`;
    const agent = laneAgent({
      "2":
        `if [ "$K" = 1 ]; then i=0; while [ ! -f "${repo}/s1.txt" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done; ${TICK_AND_WRITE}` +
        `else ${TICK_AND_WRITE.replace('echo "story $S" > "s$S.txt"', 'echo "story $S knows-1" > "s$S.txt"')}fi\n`,
    });
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, verify, maxRetries: 3 });
    expect([r.state.status, why(r)]).toEqual(["done", expect.any(String)]);
    expect(r.events.some((e) => e.type === "Lane" && e.step === "verify_failed" && e.story_id === "2")).toBe(true);
    expect(readFileSync(join(repo, "s2.txt"), "utf8")).toBe("story 2 knows-1\n");
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(worktrees(repo)).toBe(1);
  }, 180_000);
});
