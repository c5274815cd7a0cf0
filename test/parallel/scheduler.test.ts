// The scheduler of --parallel (engine/lanes/scheduler.ts) driven through LoopDeps: real git, real lanes and merge
// queue, a real agent program in each lane.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runEngine } from "../helpers/engine.ts";
import { laneAgent, TICK_AND_WRITE, WAIT_FOR_STARTS } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const STORIES = (n: number, after: Record<number, string> = {}) =>
  "# Tasks\n\n" +
  Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}${after[i + 1] ? ` (after ${after[i + 1]})` : ""}\n- [ ] ${i + 1}.1 do\n`).join("\n");

const worktrees = (repo: string) =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree ")).length;
const laneBranches = (repo: string) => git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/");

describe("--parallel: the scheduler", () => {
  test("three independent stories run at once, each integrated; no lane is left", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3) });
    // Each agent waits until all three have started: a loop that ran them one after another would never pass.
    const agent = laneAgent({}, WAIT_FOR_STARTS(3) + TICK_AND_WRITE);
    const r = await runEngine(repo, [], { parallel: 3, agentCmd: agent.cmd, env: agent.env });
    expect(r.state.status).toBe("done");
    for (const id of ["1", "2", "3"]) expect(readFileSync(join(repo, `s${id}.txt`), "utf8")).toBe(`story ${id}\n`);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).not.toContain("- [ ]");
    expect(r.state.iterations.map((i) => i.outcome).sort()).toEqual(["complete", "complete", "complete"]);
    expect(new Set(r.state.iterations.map((i) => i.n)).size).toBe(3);
    expect(r.state.lanes).toEqual([]);
    const steps = r.events.filter((e) => e.type === "Lane").map((e) => (e.type === "Lane" ? `${e.story_id}:${e.step}` : ""));
    for (const id of ["1", "2", "3"])
      expect(steps.filter((s) => s.startsWith(`${id}:`))).toEqual(["opened", "queued", "integrating", "integrated", "closed"].map((s) => `${id}:${s}`));
    expect(worktrees(repo)).toBe(1);
    expect(laneBranches(repo)).toBe("");
    expect(git(repo, "status", "--porcelain")).toBe("");
  }, 120_000);

  test("a story waits for its prerequisites to be integrated", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3, { 3: "1, 2" }) });
    // Story 3's agent finds the files of 1 and 2 in its lane: it was made after they were integrated.
    const agent = laneAgent({ "3": `[ -f s1.txt ] && [ -f s2.txt ] && cp s1.txt seen1.txt\n${TICK_AND_WRITE}` });
    const r = await runEngine(repo, [], { parallel: 3, agentCmd: agent.cmd, env: agent.env });
    if (r.state.status !== "done") console.log(r.state.reason, JSON.stringify(r.state.iterations.map((i) => [i.story_id, i.outcome, i.reason])));
    expect(r.state.status).toBe("done");
    expect(existsSync(join(repo, "seen1.txt"))).toBe(true);
    const start3 = Number(readFileSync(join(agent.dir, "start-3-1"), "utf8"));
    for (const id of ["1", "2"]) expect(Number(readFileSync(join(agent.dir, `end-${id}-1`), "utf8"))).toBeLessThan(start3);
  }, 120_000);

  test("two stories editing the same line: the second conflicts, goes again on the new head with the paths, both land", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2), "shared.txt": "line\n" });
    // Both change the one line; 2 finishes its first try only once 1 is integrated (its file is in the main tree).
    const edit = (id: string) => `echo "from $S try $K" > shared.txt\necho "$S" >> "shared-$S.log"\n`;
    const agent = laneAgent({
      "1": `${edit("1")}${TICK_AND_WRITE}`,
      "2":
        `if [ "$K" = 1 ]; then i=0; while [ ! -f "${repo}/s1.txt" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; fi\n` +
        `if [ "$K" = 2 ]; then cat shared.txt > "$D/seen-by-2"; printf 'from 1 try 1\\nand from 2\\n' > shared.txt; else ${edit("2")} fi\n${TICK_AND_WRITE}`,
    });
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, maxRetries: 3 });
    if (r.state.status !== "done") console.log(r.state.reason, JSON.stringify(r.state.iterations.map((i) => [i.story_id, i.outcome, i.reason])));
    expect(r.state.status).toBe("done");
    const conflict = r.events.find((e) => e.type === "Lane" && e.step === "conflict");
    expect(conflict && conflict.type === "Lane" ? [conflict.story_id, conflict.paths] : null).toEqual(["2", ["shared.txt"]]);
    expect(readFileSync(join(agent.dir, "prompt-2-2.txt"), "utf8")).toContain("shared.txt");
    expect(readFileSync(join(agent.dir, "seen-by-2"), "utf8")).toBe("from 1 try 1\n"); // the new head
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).toBe("from 1 try 1\nand from 2\n");
    // A conflict with work integrated meanwhile costs no attempt: the retry is attempt 1 again (converge.test.ts).
    expect(r.state.iterations.filter((i) => i.story_id === "2").map((i) => i.attempt)).toEqual([1, 1]);
    expect(worktrees(repo)).toBe(1);
    expect(readFileSync(join(repo, "shared.txt"), "utf8")).not.toContain("<<<<<<<");
  }, 120_000);

  test("a stop ends every lane: each agent ends, each lane is closed with its work kept by a ref, the loop ends stopped", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3) });
    // Each agent writes a file, then hangs (its pid kept) until the stop ends it.
    const agent = laneAgent({}, `echo "half of $S" > "half-$S.txt"\necho $$ > "$D/pid-$S"\nsleep 120\n`);
    let opened = 0;
    const r = await runEngine(repo, [], {
      parallel: 2,
      agentCmd: agent.cmd,
      env: agent.env,
      onEvent: (e, abort) => {
        if (e.type === "Lane" && e.step === "opened" && ++opened === 2) {
          const pids = () => ["1", "2"].every((s) => existsSync(join(agent.dir, `pid-${s}`)));
          const t = setInterval(() => pids() && (clearInterval(t), abort()), 50);
        }
      },
    });
    expect(r.state.status).toBe("stopped");
    expect(r.state.lanes).toEqual([]);
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["stopped", "stopped"]);
    for (const s of ["1", "2"]) {
      const pid = Number(readFileSync(join(agent.dir, `pid-${s}`), "utf8"));
      expect(() => process.kill(pid, 0)).toThrow(); // gone
      expect(
        git(
          repo,
          "show",
          `refs/wt-loop/${git(repo, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/wt-loop/")
            .split("\n")
            .find((l) => l.endsWith(`lane-${s}-1`))}:half-${s}.txt`,
        ),
      ).toBe(`half of ${s}`);
    }
    expect(existsSync(join(agent.dir, "pid-3"))).toBe(false); // no lane opened after the stop
    expect(worktrees(repo)).toBe(1);
    expect(laneBranches(repo)).toBe("");
  }, 120_000);
});
