// --parallel: the gates a story passes in its lane are the sequential loop's (--review), and a story out of
// attempts ends the loop only once the other lanes' work is integrated (docs/parallel.md, "How lanes run").
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine } from "../helpers/engine.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const worktrees = (repo: string) =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree ")).length;
const laneRefs = (repo: string) =>
  git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")
    .split("\n")
    .filter((l) => /\/lane-/.test(l));

describe("--parallel: gates and endings", () => {
  test("a story out of attempts: the lane running beside it is finished and integrated, then the loop ends stuck naming the story", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    // Story 1 never reports; story 2 holds until story 1's last lane is closed (its ref made), so it ends after story 1 ran out.
    const agent = laneAgent({
      "1": `echo "try $K" > "half-1.txt"\necho 'I could not do it.'\n`,
      "2": `i=0; until git for-each-ref --format='%(refname)' refs/wt-loop/ | grep -q 'lane-1-2$' || [ $i -ge 900 ]; do sleep 0.1; i=$((i+1)); done\n${TICK_AND_WRITE}`,
    });
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, maxRetries: 2 });
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toContain('Story 1 "S1" failed after 2 attempts');
    expect(r.state.reason).toContain("story 2 was integrated");
    // Story 2's lane ended after story 1 ran out, and its work is on the loop branch all the same.
    expect(r.events.findIndex((e) => e.type === "Lane" && e.story_id === "2" && e.step === "integrated")).toBeGreaterThan(
      r.events.findIndex((e) => e.type === "Error" && e.message.includes("failed after 2 attempts")),
    );
    expect(readFileSync(join(repo, "s2.txt"), "utf8")).toBe("story 2\n");
    // Story 1's unaccepted work of each attempt is kept by its lane ref, none of it on the branch.
    expect(laneRefs(repo).filter((l) => /lane-1-\d$/.test(l)).length).toBe(2);
    expect(git(repo, "ls-files", "half-1.txt")).toBe("");
    expect(worktrees(repo)).toBe(1);
    expect(r.state.lanes).toEqual([]);
  }, 180_000);

  test("a story out of attempts names the stories waiting on it, which were not started", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(4).replace("## 2. S2", "## 2. S2 (after 1)").replace("## 3. S3", "## 3. S3 (after 2)") });
    const agent = laneAgent({ "1": `echo 'I could not do it.'\n` });
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, maxRetries: 1 });
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toContain('Story 1 "S1" failed after 1 attempt');
    expect(r.state.reason).toContain("Stories 2, 3 wait on it and were not started");
    expect(r.state.iterations.some((i) => i.story_id === "2" || i.story_id === "3")).toBe(false);
  }, 180_000);

  test("--review in a lane: CHANGES sends the story again with the reviewer's reason, APPROVE lets it be integrated", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    const dir = tempDir("reviewer-");
    // Story 1's first review asks for changes; every other review approves. The reviewer keeps what it was shown.
    writeFileSync(
      join(dir, "review.sh"),
      `p=$(cat); s=$(printf '%s' "$p" | grep -q '1\\. S1' && echo 1 || echo 2); n=$(ls "${dir}" | grep -c "^seen-$s-"); printf '%s' "$p" > "${dir}/seen-$s-$((n+1))"\n` +
        `if [ "$s" = 1 ] && [ "$n" = 0 ]; then echo '<review>CHANGES: s1.txt must say reviewed</review>'; else echo '<review>APPROVE</review>'; fi\n`,
    );
    const agent = laneAgent({
      "1": `${TICK_AND_WRITE.replace('echo "story $S" > "s$S.txt"', '[ "$K" = 2 ] && echo reviewed > s1.txt || echo "story $S" > s1.txt')}`,
    });
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, review: "command", reviewCmd: `sh "${join(dir, "review.sh")}"` });
    if (r.state.status !== "done") console.log(r.state.reason);
    expect(r.state.status).toBe("done");
    const of = (id: string) => r.state.iterations.filter((i) => i.story_id === id).map((i) => [i.attempt, i.outcome, i.review?.verdict]);
    expect(of("1")).toEqual([
      [1, "rejected", "changes"],
      [2, "complete", "approve"],
    ]);
    expect(of("2")).toEqual([[1, "complete", "approve"]]);
    expect(readFileSync(join(dir, "seen-1-1"), "utf8")).toContain("+story 1"); // the lane's diff
    expect(readFileSync(join(agent.dir, "prompt-1-2.txt"), "utf8")).toContain("s1.txt must say reviewed");
    expect(readFileSync(join(repo, "s1.txt"), "utf8")).toBe("reviewed\n");
    expect(readFileSync(join(repo, "s2.txt"), "utf8")).toBe("story 2\n");
    expect(worktrees(repo)).toBe(1);
  }, 180_000);
});
