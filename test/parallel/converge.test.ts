// --parallel must converge on conflicts its own schedule caused (docs/parallel.md, "When the schedule causes a
// conflict"): a conflict with work integrated after the lane was made, or a --verify that fails only on the
// integrated tree, costs the story no attempt, and its next attempt runs alone against the new head, so it
// cannot be hit the same way twice. The sweep over timings (2 and 3 lanes, 4 and 8 stories, agents of
// 0.2–3 s, 20 seeds each) is `bun run converge`; these are its cases made deterministic.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine } from "../helpers/engine.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const STORIES = (n: number, after: Record<number, string> = {}) =>
  "# Tasks\n\n" +
  Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}${after[i + 1] ? ` (after ${after[i + 1]})` : ""}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const APPEND = `echo "- story $S" >> changelog.md\n`;
const waitMain = (repo: string, file: string, tenths: number) =>
  `i=0; while [ ! -e "${repo}/${file}" ] && [ $i -lt ${tenths} ]; do sleep 0.1; i=$((i+1)); done\n`;
const attempts = (r: Awaited<ReturnType<typeof runEngine>>, id: string) => r.state.iterations.filter((i) => i.story_id === id).map((i) => i.attempt);
const explain = (r: Awaited<ReturnType<typeof runEngine>>) =>
  r.state.status === "done" ? "" : `${r.state.reason}\n${JSON.stringify(r.state.iterations.map((i) => [i.story_id, i.attempt, i.outcome, i.reason]))}`;

describe("--parallel: conflicts the schedule caused converge", () => {
  test("every story appends to one file: a story hit twice by work integrated meanwhile still lands, each conflict free, its retry alone", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3, { 3: "1" }), "changelog.md": "# Changelog\n" });
    // Story 2's first try appends once story 1 is in (a conflict); its second waits (up to 3 s) for story 3 to be
    // integrated first, which story 3 does as soon as story 2's second try has started. Run alone, it is not.
    const agent = laneAgent(
      {
        "2": `if [ "$K" = 1 ]; then ${waitMain(repo, "s1.txt", 600)}else ${waitMain(repo, "s3.txt", 30)}fi\n${APPEND}${TICK_AND_WRITE}`,
        "3": `i=0; while [ ! -e "$D/start-2-2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n${APPEND}${TICK_AND_WRITE}`,
      },
      APPEND + TICK_AND_WRITE,
    );
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, maxRetries: 2 });
    expect([r.state.status, explain(r)]).toEqual(["done", ""]);
    const lines = readFileSync(join(repo, "changelog.md"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("- "));
    expect(lines.sort()).toEqual(["- story 1", "- story 2", "- story 3"]);
    // Story 2 conflicted once and was not charged; its retry ran alone, so story 3 waited and conflicted in turn.
    expect(attempts(r, "2")).toEqual([1, 1]);
    expect(readFileSync(join(agent.dir, "prompt-2-2.txt"), "utf8")).toContain("changelog.md");
    const conflicts = r.events.filter((e) => e.type === "Lane" && e.step === "conflict").map((e) => (e.type === "Lane" ? e.story_id : ""));
    expect(conflicts).toEqual(["2", "3"]);
    expect(r.state.iterations.find((i) => i.story_id === "2" && i.outcome === "rejected")?.reason).toContain("Not counted as an attempt");
    expect(git(repo, "status", "--porcelain")).toBe("");
  }, 120_000);

  test("--verify that fails only on the integrated tree: no attempt is charged, the retry alone passes", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2), "total.txt": "0\n" });
    // Each story adds a file and writes how many there are: two lanes made at once both write 1, which merges
    // cleanly and fails the count once both are in. Story 2 finishes once story 1 is integrated.
    const count = `echo "story $S" > "s$S.txt"; ls s*.txt | wc -l | tr -d ' ' > total.txt\n`;
    const agent = laneAgent({ "2": `if [ "$K" = 1 ]; then ${waitMain(repo, "s1.txt", 600)}fi\n${count}${TICK_AND_WRITE}` }, count + TICK_AND_WRITE);
    const verify = `[ "$(ls s*.txt 2>/dev/null | wc -l | tr -d ' ')" = "$(cat total.txt)" ]`;
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, maxRetries: 1, verify });
    expect([r.state.status, explain(r)]).toEqual(["done", ""]);
    expect(readFileSync(join(repo, "total.txt"), "utf8")).toBe("2\n");
    expect(r.events.filter((e) => e.type === "Lane" && e.step === "verify_failed").map((e) => (e.type === "Lane" ? e.story_id : ""))).toEqual(["2"]);
    expect(attempts(r, "2")).toEqual([1, 1]);
  }, 120_000);
});
