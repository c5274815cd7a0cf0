// `--audit` (issue 34 part 1): once every story is accepted a fresh agent audits the whole change; its gaps become a
// story appended to the tasks file and the loop goes on. Command auditors (real processes, scripted) cover the
// paths: gaps then PASS, the same gap twice, no verdict, the rounds bound, an auditor that edits files.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyRows } from "../../../src/term/history-view.ts";
import { receiptOf } from "../../../src/record/receipt.ts";
import { runEngine, tickStory } from "../../helpers/engine.ts";
import { makeRepo, tempDir } from "../../helpers/repo.ts";
import { laneAgent } from "../../helpers/lane-agent.ts";

const ONE = "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n";

/** An auditor that runs `steps[i]` (sh) on its i-th run, its prompt kept as `$dir/audit-N.txt`. */
function auditor(steps: string[]) {
  const dir = tempDir("auditor-");
  steps.forEach((s, i) => writeFileSync(join(dir, `step-${i + 1}.sh`), s));
  writeFileSync(join(dir, "step-last.sh"), steps.at(-1)!);
  const cmd =
    `n=$(( $(cat "${dir}/count" 2>/dev/null || echo 0) + 1 )); echo $n > "${dir}/count"; cat > "${dir}/audit-$n.txt"; ` +
    `f="${dir}/step-$n.sh"; [ -f "$f" ] || f="${dir}/step-last.sh"; . "$f"`;
  return { cmd, prompt: (n: number) => readFileSync(join(dir, `audit-${n}.txt`), "utf8"), runs: () => Number(readFileSync(join(dir, "count"), "utf8")) };
}

const GAPS = `echo 'The goal asks for a farewell too.'; printf '<audit>\\nGAP: write bye.txt saying bye (requirement: farewell)\\nGAP: mention bye.txt in README.md (scenario: docs)\\n</audit>\\n'`;
const PASS = `echo 'All met.'; echo '<audit>PASS</audit>'`;

describe.each([["branch"], ["stash"]] as const)("--audit (%s checkpoints)", (checkpoint) => {
  test("the audit's gaps become a story that is implemented, then a PASS ends the loop done", async () => {
    const repo = makeRepo({ "tasks.md": ONE, "README.md": "# r\n" });
    // The first auditor also scribbles in the tree: put back before its verdict counts.
    const au = auditor([`echo scribble > hello.txt; echo junk > junk.txt; ${GAPS}`, PASS]);
    const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt"), tickStory("2", "echo bye > bye.txt; echo 'see bye.txt' >> README.md")], {
      checkpoint,
      task: "Greet and say farewell",
      audit: true,
      auditAgent: "command",
      auditCmd: au.cmd,
      verify: "test -f hello.txt",
    });
    expect(r.state.status).toBe("done");
    expect(r.state.reason).toContain("the audit passed (round 2)");
    expect(r.state.iterations.map((i) => [i.n, i.kind ?? "story", i.story_id, i.outcome, i.audit?.verdict ?? null])).toEqual([
      [1, "story", "1", "complete", null],
      [2, "audit", null, "rejected", "gaps"],
      [3, "story", "2", "complete", null],
      [4, "audit", null, "complete", "pass"],
    ]);
    const tasks = readFileSync(join(repo, "tasks.md"), "utf8");
    expect(tasks).toContain(
      "## 2. Gaps found by the audit (round 1)\n\n- [x] 2.1 write bye.txt saying bye (requirement: farewell)\n- [x] 2.2 mention bye.txt in README.md (scenario: docs)\n",
    );
    expect(r.state.iterations[1]!.audit).toMatchObject({
      round: 1,
      story_id: "2",
      gaps: ["write bye.txt saying bye (requirement: farewell)", "mention bye.txt in README.md (scenario: docs)"],
    });
    // What the auditor changed was put back: the agent's hello.txt stands, its junk is gone.
    expect(r.state.iterations[1]!.audit!.put_back.join()).toContain("hello.txt (modified)");
    expect(readFileSync(join(repo, "hello.txt"), "utf8")).toBe("hello\n");
    expect(() => readFileSync(join(repo, "junk.txt"))).toThrow();
    // The goal first, the claim, the whole diff since the loop began, the check and its output, how to answer.
    const p1 = au.prompt(1);
    const at = (s: string) => p1.indexOf(s);
    expect(at("Greet and say farewell")).toBeGreaterThan(-1);
    expect(at("Greet and say farewell")).toBeLessThan(at("## The implementer's claim"));
    expect(at("## The implementer's claim")).toBeLessThan(at("## What the loop changed"));
    expect(p1).toContain("- [x] 1.1 write hello.txt");
    expect(p1).toContain("+hello");
    expect(p1).toContain("`test -f hello.txt`");
    expect(p1).toContain("<audit>PASS</audit>");
    // The second round sees the whole change (both stories' work) and the gaps found before.
    const p2 = au.prompt(2);
    expect(p2).toContain("+hello");
    expect(p2).toContain("+bye");
    expect(p2).toContain("- write bye.txt saying bye (requirement: farewell)");
    // The gap story's attempt was told what to do like any story.
    expect(readFileSync(join(r.agentDir, "prompt-2.txt"), "utf8")).toContain("write bye.txt saying bye");
    // Events: the audit is its own kind of iteration.
    expect(r.events.filter((e) => e.type === "AuditEnd").map((e) => e.type === "AuditEnd" && [e.iteration, e.verdict, e.final])).toEqual([
      [2, "gaps", true],
      [4, "pass", true],
    ]);
    expect(r.events.some((e) => e.type === "AuditEvent")).toBe(true);
    // The receipt keeps the audit apart from the stories; history shows it.
    const receipt = receiptOf(r.state);
    expect(receipt.stories.map((s) => s.id)).toEqual(["1", "2"]);
    expect(receipt.audit).toMatchObject({ rounds: 2, gaps: 2 });
    const table = historyRows(r.state.iterations).join("\n");
    expect(table).toMatch(/audit .*gaps/);
    expect(table).toMatch(/audit .*pass/);
  });
});

test("a failed attempt at the gap story is reverted to the checkpoint that holds the story, and the next attempt does it", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  const au = auditor([GAPS, PASS]);
  const r = await runEngine(
    repo,
    [tickStory("1", "echo hello > hello.txt"), "echo half > bye.txt\necho '<promise>FAILED: not now</promise>'", tickStory("2", "echo bye > bye.txt")],
    {
      audit: true,
      auditAgent: "command",
      auditCmd: au.cmd,
    },
  );
  expect(r.state.status).toBe("done");
  expect(r.state.iterations.map((i) => [i.story_id ?? "audit", i.outcome])).toEqual([
    ["1", "complete"],
    ["audit", "rejected"],
    ["2", "failed"],
    ["2", "complete"],
    ["audit", "complete"],
  ]);
  expect(readFileSync(join(repo, "bye.txt"), "utf8")).toBe("bye\n");
});

test("the same gap found twice ends the loop stuck, naming it; no second story is written for it", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  const same = `printf '<audit>\\nGAP: Write bye.txt  saying bye\\n</audit>\\n'`;
  const au = auditor([`printf '<audit>\\nGAP: write bye.txt saying bye\\n</audit>\\n'`, same]);
  const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt"), tickStory("2", "echo nope > other.txt")], {
    audit: true,
    auditAgent: "command",
    auditCmd: au.cmd,
  });
  expect(r.state.status).toBe("stuck");
  expect(r.state.reason).toContain('found a gap again that the story written for it did not close: "Write bye.txt  saying bye"');
  expect(r.state.iterations.at(-1)!.audit).toMatchObject({ verdict: "repeated", story_id: null });
  const tasks = readFileSync(join(repo, "tasks.md"), "utf8");
  expect(tasks.match(/Gaps found by the audit/g)).toHaveLength(1);
});

describe("an auditor without a verdict is run once more, then the loop ends stuck: every story is complete but the change was not audited", () => {
  test.each([
    ["no verdict", "echo 'Looks fine.'", "did not end with <audit>PASS</audit>"],
    ["an audit tag with no GAP line", "printf '<audit>\\nsome thoughts\\n</audit>\\n'", "did not end with <audit>PASS</audit>"],
    ["a crash", "echo partial; exit 7", "exited with code 7"],
  ])("%s", async (_, step, why) => {
    const repo = makeRepo({ "tasks.md": ONE });
    const au = auditor([step]);
    const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt")], { audit: true, auditAgent: "command", auditCmd: au.cmd });
    expect(r.state.status).toBe("stuck");
    expect(au.runs()).toBe(2);
    expect(r.state.reason).toContain("every story is complete, but the change was not audited");
    expect(r.state.reason).toContain(why);
    const last = r.state.iterations.at(-1)!;
    expect(last).toMatchObject({ kind: "audit", outcome: "no_signal", audit: { verdict: "missing", runs: 2 } });
    expect(last.log_file).toMatch(/iter-002\.audit-2\.jsonl$/);
    expect(r.events.filter((e) => e.type === "AuditStart")).toHaveLength(2);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).not.toContain("Gaps found");
  });
});

test("--audit-rounds bounds the audit: the last round's gaps are implemented, then the loop is done without another audit", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  const au = auditor([GAPS]);
  const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt"), tickStory("2", "echo bye > bye.txt")], {
    audit: true,
    auditAgent: "command",
    auditCmd: au.cmd,
    auditRounds: 1,
  });
  expect(r.state.status).toBe("done");
  expect(au.runs()).toBe(1);
  expect(r.state.reason).toContain("The audit ran its 1 round (--audit-rounds 1); the gaps of the last were implemented and not audited again.");
  expect(r.state.iterations.map((i) => i.kind ?? "story")).toEqual(["story", "audit", "story"]);
});

test("without --audit-agent or --review, the auditor is the loop's own agent, in a fresh run", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  // The loop's agent is the auditor: its third run is the audit (the step prints PASS).
  const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt"), `echo '<audit>PASS</audit>'`], { audit: true });
  expect(r.state.status).toBe("done");
  expect(readFileSync(join(r.agentDir, "prompt-2.txt"), "utf8")).toContain("You are the auditor");
  expect(r.state.iterations[1]!.audit!.auditor).toBe("command");
});

test("--parallel: the audit runs once the lanes have integrated every story, and its gap story goes through a lane", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n" });
  const agent = laneAgent();
  const au = auditor([`printf '<audit>\\nGAP: write s3.txt (scenario: third)\\n</audit>\\n'`, PASS]);
  const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, audit: true, auditAgent: "command", auditCmd: au.cmd });
  expect(r.state.status).toBe("done");
  expect(au.runs()).toBe(2);
  // The first audit saw both lanes' work, integrated; the gap story's lane wrote s3.txt before the second.
  expect(au.prompt(1)).toContain("+story 1");
  expect(au.prompt(1)).toContain("+story 2");
  expect(au.prompt(2)).toContain("+story 3");
  expect(readFileSync(join(repo, "s3.txt"), "utf8")).toBe("story 3\n");
  expect(r.state.iterations.filter((i) => i.kind === "audit").map((i) => i.audit!.verdict)).toEqual(["gaps", "pass"]);
}, 180_000);
