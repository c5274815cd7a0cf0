// `--review` (issue 21): a second agent's verdict gates a COMPLETE. Command reviewers cover the edge
// cases: no verdict, a verdict in a code block, a crash, a timeout, a reviewer that edits files.
// Real git, real processes; the real Claude Code reviewer is in test/e2e.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyRows } from "../../../src/term/history-view.ts";
import { runEngine, tickStory } from "../../helpers/engine.ts";
import { git, makeRepo, tempDir } from "../../helpers/repo.ts";

const ONE = "# Tasks\n\n## 1. One\n- [ ] 1.1 make x good\n";
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A reviewer that runs `steps[i]` (sh) on its i-th run, its prompt kept as `$dir/review-N.txt`. */
function reviewer(steps: string[]) {
  const dir = tempDir("reviewer-");
  steps.forEach((s, i) => writeFileSync(join(dir, `step-${i + 1}.sh`), s));
  writeFileSync(join(dir, "step-last.sh"), steps.at(-1)!);
  const cmd =
    `n=$(( $(cat "${dir}/count" 2>/dev/null || echo 0) + 1 )); echo $n > "${dir}/count"; cat > "${dir}/review-$n.txt"; ` +
    `f="${dir}/step-$n.sh"; [ -f "$f" ] || f="${dir}/step-last.sh"; . "$f"`;
  return { dir, cmd, prompt: (n: number) => readFileSync(join(dir, `review-${n}.txt`), "utf8"), runs: () => Number(readFileSync(join(dir, "count"), "utf8")) };
}

describe.each([["branch"], ["stash"]] as const)("--review (%s checkpoints)", (checkpoint) => {
  test("CHANGES rejects the attempt: reverted, the next prompt carries the reason; APPROVE accepts the next", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const rv = reviewer([
      `echo 'x.txt says bad.'; echo '<review>CHANGES: x.txt must say good, not bad</review>'`,
      `echo 'Fine.'; echo '<review>APPROVE</review>'`,
    ]);
    const seen = `ls > "$AGENT_DIR/ls-$n.txt"\n`;
    const r = await runEngine(repo, [seen + tickStory("1", "echo bad > x.txt"), seen + tickStory("1", "echo good > x.txt")], {
      checkpoint,
      review: "command",
      reviewCmd: rv.cmd,
      verify: "true",
    });
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i) => [i.attempt, i.outcome, i.review?.verdict])).toEqual([
      [1, "rejected", "changes"],
      [2, "complete", "approve"],
    ]);
    expect(r.state.iterations[0]!.reason).toContain("x.txt must say good, not bad");
    // The reviewer saw the story, its tasks and the attempt's diff (untracked files included).
    const p1 = rv.prompt(1);
    expect(p1).toContain("1. One");
    expect(p1).toContain("- [x] 1.1 make x good");
    expect(p1).toContain("+bad");
    expect(p1).toContain("<review>APPROVE</review>");
    expect(rv.prompt(2)).toContain("+good");
    // The retry's prompt carries the reviewer's reason, and started from the checkpoint.
    expect(readFileSync(join(r.agentDir, "prompt-2.txt"), "utf8")).toContain("x.txt must say good, not bad");
    expect(readFileSync(join(r.agentDir, "ls-2.txt"), "utf8")).not.toContain("x.txt");
    expect(readFileSync(join(repo, "x.txt"), "utf8")).toBe("good\n");
    expect(r.events.filter((e) => e.type === "ReviewEnd").map((e) => e.type === "ReviewEnd" && e.verdict)).toEqual(["changes", "approve"]);
    expect(r.events.some((e) => e.type === "ReviewEvent")).toBe(true);
    expect(existsSync(r.state.iterations[0]!.review!.log_file)).toBe(true);
    expect(readFileSync(r.state.iterations[0]!.review!.diff_file, "utf8")).toContain("+bad");
    // The agent was told up front; `history` shows the verdicts.
    expect(readFileSync(join(r.agentDir, "prompt-1.txt"), "utf8")).toContain("a reviewer (another agent) reads the story and your diff");
    const table = historyRows(r.state.iterations).join("\n");
    expect(table).toContain("review");
    expect(table).toMatch(/rejected .*changes/);
    expect(table).toMatch(/complete .*approved/);
  });

  test("a reviewer that edits, adds and commits files: all of it is put back before its verdict counts, and recorded", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const rv = reviewer([
      `echo hacked > x.txt; echo mine > reviewer.txt; git add -A >/dev/null; git commit -qm 'reviewer commit' >/dev/null; echo stray > stray.txt; echo '<review>APPROVE</review>'`,
    ]);
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { checkpoint, review: "command", reviewCmd: rv.cmd });
    expect(r.state.status).toBe("done");
    const review = r.state.iterations[0]!.review!;
    expect(review.verdict).toBe("approve");
    expect(review.put_back.join("\n")).toContain("x.txt (modified)");
    expect(review.put_back.join("\n")).toContain("reviewer.txt (added)");
    expect(review.put_back.join("\n")).toContain("refs");
    expect(readFileSync(join(repo, "x.txt"), "utf8")).toBe("good\n");
    expect(existsSync(join(repo, "reviewer.txt"))).toBe(false);
    expect(existsSync(join(repo, "stray.txt"))).toBe(false);
    expect(git(repo, "log", "--format=%s", "-n", "5")).not.toContain("reviewer commit");
    if (checkpoint === "branch") expect(git(repo, "show", "--stat", "--format=", "HEAD")).toContain("x.txt");
  });

  // The kept commit's `add -A` leaves nested repositories out by what the attempt's measure saw (one git process
  // less an iteration): a repository the reviewer or the verify command made after that measure must be left out too.
  test.each([
    ["the reviewer", { review: "command" as const }],
    ["the verify command", { verify: "git init -q vendor/late" }],
  ])("a nested repository %s made after the attempt's measure is not recorded as a gitlink", async (_, how) => {
    const repo = makeRepo({ "tasks.md": ONE });
    const rv = reviewer([`git init -q vendor/late; echo '<review>APPROVE</review>'`]);
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { checkpoint, ...how, ...("review" in how ? { reviewCmd: rv.cmd } : {}) });
    expect(r.state.status).toBe("done");
    expect(existsSync(join(repo, "vendor/late/.git"))).toBe(true); // left in the tree, untracked
    expect(git(repo, "ls-tree", "-r", "HEAD")).not.toContain("160000"); // no gitlink
    expect(git(repo, "ls-tree", "-r", "--name-only", "HEAD")).not.toContain("vendor/late");
    if (checkpoint === "branch") expect(git(repo, "show", "--stat", "--format=", "HEAD")).toContain("x.txt");
  });
});

describe("a review without a verdict is tried once more, then the story is accepted with the missing review recorded", () => {
  test.each([
    ["no verdict", "echo 'Looks fine to me.'", "did not end with <review>"],
    ["a verdict in a code block", "printf 'Answer:\\n```\\n<review>CHANGES: no</review>\\n```\\n'", "did not end with <review>"],
    ["a verdict followed by more text", "echo '<review>APPROVE</review> but I did not look'", "did not end with <review>"],
    ["a crash", "echo 'partial'; exit 3", "exited with code 3"],
  ])("%s", async (_, step, why) => {
    const repo = makeRepo({ "tasks.md": ONE });
    const rv = reviewer([step]);
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { review: "command", reviewCmd: rv.cmd });
    expect(r.state.status).toBe("done");
    expect(rv.runs()).toBe(2);
    const [it] = r.state.iterations;
    expect(it!.outcome).toBe("complete");
    expect(it!.review).toMatchObject({ verdict: "missing", runs: 2 });
    expect(it!.review!.reason).toContain(why);
    expect(it!.review!.log_file).toMatch(/iter-001\.review-2\.jsonl$/);
    expect(r.events.filter((e) => e.type === "ReviewStart")).toHaveLength(2);
    expect(r.events.some((e) => e.type === "Error" && e.message.includes("accepted without a review"))).toBe(true);
  });

  test("a verdict on the second run counts", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const rv = reviewer(["exit 1", "echo '<review>CHANGES: add a test</review>'", "echo '<review>APPROVE</review>'"]);
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { review: "command", reviewCmd: rv.cmd });
    expect(r.state.iterations.map((i) => [i.outcome, i.review?.verdict, i.review?.runs])).toEqual([
      ["rejected", "changes", 2],
      ["complete", "approve", 1],
    ]);
  });

  test("a reviewer that hangs is ended at --review-timeout with every process it started, and counts as no verdict", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const dir = tempDir("review-hang-");
    const rv = reviewer([`sleep 300 & echo $! > ${dir}/child-$n.pid; setsid -f sh -c 'echo $$ > ${dir}/setsid-'$n'.pid; exec sleep 300'; sleep 300`]);
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { review: "command", reviewCmd: rv.cmd, reviewTimeout: 0.02 });
    expect(r.state.status).toBe("done");
    expect(r.state.iterations[0]!.review).toMatchObject({ verdict: "missing", runs: 2 });
    expect(r.state.iterations[0]!.review!.reason).toContain("--review-timeout");
    for (const f of ["child-1", "setsid-1", "child-2", "setsid-2"]) expect(alive(Number(readFileSync(join(dir, `${f}.pid`), "utf8")))).toBe(false);
  });
});

test("a stop during the review ends the reviewer; what it changed is put back, the attempt's work stays in the tree unaccepted", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  const dir = tempDir("review-stop-");
  // The child's pid is on disk before "started" (which stops the loop): a stop never comes before the file is written.
  const rv = reviewer([`echo scribble > x.txt; sleep 300 & echo $! > ${dir}/child.pid.tmp && mv ${dir}/child.pid.tmp ${dir}/child.pid; echo started; wait`]);
  const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], {
    review: "command",
    reviewCmd: rv.cmd,
    onEvent: (e, abort) => {
      if (e.type === "ReviewEvent" && e.event.type === "Message" && e.event.text === "started") abort();
    },
  });
  expect(r.state.status).toBe("stopped");
  expect(r.state.iterations[0]).toMatchObject({ outcome: "stopped", review: { verdict: "stopped" } });
  expect(r.state.iterations[0]!.review!.put_back.join()).toContain("x.txt (modified)");
  expect(readFileSync(join(repo, "x.txt"), "utf8")).toBe("good\n");
  expect(alive(Number(readFileSync(join(dir, "child.pid"), "utf8")))).toBe(false);
});
