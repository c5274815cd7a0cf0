// --parallel: what the loop's end leaves of its lanes (docs/parallel.md, "What is left at the end"): a lane ref whose
// work the loop branch holds is dropped, judged by content; one whose work it does not hold is kept and named.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine } from "../helpers/engine.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const laneRefs = (repo: string) =>
  git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")
    .split("\n")
    .filter((l) => /\/lane-/.test(l));
// Attempt 1 writes exactly what attempt 2 integrates, but gives no promise: its ref holds work the branch ends up holding.
const REDONE = `if [ "$K" = 1 ]; then echo "story $S" > "s$S.txt"; echo 'not yet'; else\n${TICK_AND_WRITE}fi\n`;

describe("--parallel: lane refs at the loop's end", () => {
  test("ends done: the ref of an attempt whose work was redone and integrated is dropped", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    const agent = laneAgent({ "1": REDONE });
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, maxRetries: 2 });
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.filter((i) => i.story_id === "1").map((i) => i.outcome)).toEqual(["no_signal", "complete"]);
    expect(laneRefs(repo)).toEqual([]);
    expect(r.state.reason).not.toContain("is kept");
    // No lane left means no folder of lanes either (found by the kill soak: an empty one stayed in the git dir).
    const lanes = join(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir"), "wt-loop/lanes");
    expect(existsSync(lanes) ? readdirSync(lanes) : []).toEqual([]);
  }, 180_000);

  test("ends stuck: work not on the branch stays under its ref, named with how to see and delete it; cleanup says it is not among the changes", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    // Story 2 fails only once story 1 is integrated, so story 1 is redone before the loop ends.
    const agent = laneAgent({
      "1": REDONE,
      "2": `i=0; while [ ! -f "${repo}/s1.txt" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done\necho "try $K" > half-2.txt\necho 'I could not do it.'\n`,
    });
    const r = await runEngine(repo, [], {
      parallel: 2,
      agentCmd: agent.cmd,
      env: agent.env,
      maxRetries: 2,
      chooseCompletion: () => ({ kind: "now", choice: "cleanup" }),
    });
    expect(r.state.status).toBe("stuck");
    expect(readFileSync(join(repo, "s1.txt"), "utf8")).toBe("story 1\n");
    const refs = laneRefs(repo);
    expect(refs.map((l) => l.replace(/.*\/lane-/, "lane-"))).toEqual(["lane-2-1", "lane-2-2"]);
    for (const ref of refs) expect(r.state.reason).toContain(ref);
    expect(r.state.reason).toContain("story 2 attempt 1 in");
    expect(r.state.reason).toContain("`git update-ref -d <ref>`");
    expect(r.state.reason).toContain("git log -p ralph/");
    expect(r.state.completion).toBe("cleanup");
    expect(r.state.completion_message).toContain(`Not among those changes: the work of lanes that was not integrated, only in ${refs.join(", ")}`);
  }, 180_000);
});
