// --audit (issue 34): the runner is killed with SIGKILL while the auditor runs. A plain `wt-loop start` continues the
// loop with its remembered options: every story is still complete, so it goes straight to the audit (no story is
// redone), and the audit's PASS ends it done. Whatever the auditor had changed before the kill — files, the
// tasks file's boxes, the index, a commit on the loop branch — is put back first: it must not change the work.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { wtLoop } from "../helpers/cli.ts";
import { gateLoop, killRunnerInGate, letGateAnswer } from "../helpers/kill-in-gate.ts";
import { readState } from "../helpers/fixtures.ts";

let sleeper = 0;
afterEach(() => {
  if (sleeper && isAlive(sleeper)) process.kill(sleeper, "SIGKILL");
});

/** `start` with the scripted agent, and the scripted gate as the auditor. */
const auditedStart = (loop: { agent: string; gate: string }) => [
  "start",
  "--terminal",
  "inline",
  "--agent",
  "command",
  "--agent-cmd",
  loop.agent,
  "--audit",
  "--audit-agent",
  "command",
  "--audit-cmd",
  loop.gate,
];

test("kill -9 during the audit, then start: the audit runs again and passes; no story is redone", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n" });
  // The first audit hangs until killed; later: PASS. Each run counted in $AUDITS.
  const loop = gateLoop("kill9-audit-", { before: 'echo ran >> "$AUDITS"', finish: 'cat > "$PROMPT"; echo "<audit>PASS</audit>"' });
  const env = { ...loop.env, AUDITS: join(loop.dir, "audits") };
  const args = auditedStart(loop);
  sleeper = await killRunnerInGate(repo, { ...loop, env }, [...args, "--on-complete", "keep"]);
  expect(readState(repo)).toMatchObject({ status: "running", current_iteration: 2 });
  letGateAnswer(loop);

  const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env, timeoutMs: 120_000 });
  expect({ code: again.code, out: again.stdout.slice(-1500), err: again.stderr }).toMatchObject({ code: 0 });
  expect(again.stdout).toContain("--audit");
  const state = readState(repo);
  expect(state).toMatchObject({ status: "done", audit: true, audit_cmd: loop.gate });
  expect(state.reason).toContain("the audit passed (round 1)");
  expect(state.iterations.map((i: any) => [i.kind ?? "story", i.outcome])).toEqual([["audit", "complete"]]);
  expect(readFileSync(env.PROMPT, "utf8")).toContain("+hello"); // the whole change, from before the first run
  expect(readFileSync(env.AGENT_RUNS, "utf8").trim().split("\n")).toHaveLength(1); // the story was not redone
  expect(readFileSync(env.AUDITS, "utf8").trim().split("\n")).toHaveLength(2);
  expect(isAlive(sleeper)).toBe(false); // the dead runner's auditor was ended by the correction
}, 180_000);

test("kill -9 while the auditor has changed the tree and committed: start puts it all back before it audits again", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n" });
  // The first audit rewrites the work, unticks the box, commits it all on the loop branch, leaves a staged and an
  // untracked file, then hangs until killed; later: PASS.
  const loop = gateLoop("kill9-audit-writes-", {
    finish: 'cat > "$PROMPT"; echo "<audit>PASS</audit>"',
    firstRun:
      'echo scribbled > hello.txt\nsed -i "s/- \\[x\\]/- [ ]/" tasks.md\n' +
      "git -c user.name=a -c user.email=a@example.com commit -qam 'the auditor commits'\n" +
      "echo staged > staged.txt\ngit add staged.txt\necho notes > audit-notes.txt",
  });
  const { env } = loop;
  const args = auditedStart(loop);
  sleeper = await killRunnerInGate(repo, loop, [...args, "--on-complete", "keep"]);
  const branch = readState(repo).checkpoint_branch;
  expect(git(repo, "log", "-1", "--format=%s", branch)).toBe("the auditor commits"); // what the kill left
  letGateAnswer(loop);

  const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env, timeoutMs: 120_000 });
  expect({ code: again.code, out: again.stdout.slice(-1500), err: again.stderr }).toMatchObject({ code: 0 });
  expect(again.stdout + again.stderr).toContain("put back what the auditor had changed");
  const state = readState(repo);
  expect(state.status).toBe("done");
  expect(state.iterations.map((i: any) => [i.kind ?? "story", i.outcome])).toEqual([["audit", "complete"]]); // no story redone
  expect(readFileSync(env.AGENT_RUNS, "utf8").trim().split("\n")).toHaveLength(1);
  expect(readFileSync(join(repo, "hello.txt"), "utf8")).toBe("hello\n");
  expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1");
  expect(existsSync(join(repo, "audit-notes.txt"))).toBe(false);
  expect(existsSync(join(repo, "staged.txt"))).toBe(false);
  expect(git(repo, "status", "--porcelain")).toBe("");
  expect(git(repo, "log", "--format=%s", branch)).not.toContain("the auditor commits");
  // The second audit was shown the work, not the first auditor's scribbles.
  const prompt = readFileSync(env.PROMPT, "utf8");
  expect(prompt).toContain("+hello");
  expect(prompt).not.toContain("scribbled");
}, 180_000);
