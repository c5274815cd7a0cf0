// --audit (issue 34): the runner is killed with SIGKILL while the auditor runs. A plain `wt-loop start` continues the
// loop with its remembered options: every story is still complete, so it goes straight to the audit (no story is
// redone), and the audit's PASS ends it done. Whatever the auditor had changed before the kill — files, the
// tasks file's boxes, the index, a commit on the loop branch — is put back first: it must not change the work.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/wait.ts";

let sleeper = 0;
afterEach(() => {
  if (sleeper && isAlive(sleeper)) process.kill(sleeper, "SIGKILL");
});

test("kill -9 during the audit, then start: the audit runs again and passes; no story is redone", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n" });
  const dir = tempDir("kill9-audit-");
  const env = {
    FINISH: join(dir, "finish"),
    STARTED: join(dir, "started"),
    AGENT_RUNS: join(dir, "agent-runs"),
    AUDITS: join(dir, "audits"),
    PROMPT: join(dir, "prompt"),
    PATH: testPath(),
  };
  const agent = join(dir, "agent.sh");
  writeFileSync(
    agent,
    '#!/bin/sh\ncat > /dev/null\necho ran >> "$AGENT_RUNS"\necho hello > hello.txt\nsed -i "s/- \\[ \\]/- [x]/" tasks.md\necho "<promise>COMPLETE</promise>"\n',
  );
  const auditor = join(dir, "auditor.sh");
  // First audit: hangs until killed. Once FINISH exists: PASS.
  writeFileSync(
    auditor,
    '#!/bin/sh\necho ran >> "$AUDITS"\nif [ -e "$FINISH" ]; then cat > "$PROMPT"; echo "<audit>PASS</audit>"; exit 0; fi\ncat > /dev/null\necho $$ > "$STARTED"\nexec sleep 600\n',
  );
  chmodSync(agent, 0o755);
  chmodSync(auditor, 0o755);
  const args = [
    "start",
    "--terminal",
    "inline",
    "--agent",
    "command",
    "--agent-cmd",
    agent,
    "--audit",
    "--audit-agent",
    "command",
    "--audit-cmd",
    auditor,
    "--on-complete",
    "keep",
  ];
  const runner = spawnWtLoop(args, { cwd: repo, env, stdout: "ignore", stderr: "ignore" });
  await waitFor("the auditor to start", () => existsSync(env.STARTED) && readFileSync(env.STARTED, "utf8").endsWith("\n"), 60_000, { whileRunning: runner });
  sleeper = Number(readFileSync(env.STARTED, "utf8"));
  runner.kill("SIGKILL");
  await runner.exited;
  expect(readState(repo)).toMatchObject({ status: "running", current_iteration: 2 });
  writeFileSync(env.FINISH, "");

  const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env, timeoutMs: 120_000 });
  expect({ code: again.code, out: again.stdout.slice(-1500), err: again.stderr }).toMatchObject({ code: 0 });
  expect(again.stdout).toContain("--audit");
  const state = readState(repo);
  expect(state).toMatchObject({ status: "done", audit: true, audit_cmd: auditor });
  expect(state.reason).toContain("the audit passed (round 1)");
  expect(state.iterations.map((i: any) => [i.kind ?? "story", i.outcome])).toEqual([["audit", "complete"]]);
  expect(readFileSync(join(dir, "prompt"), "utf8")).toContain("+hello"); // the whole change, from before the first run
  expect(readFileSync(env.AGENT_RUNS, "utf8").trim().split("\n")).toHaveLength(1); // the story was not redone
  expect(readFileSync(env.AUDITS, "utf8").trim().split("\n")).toHaveLength(2);
  expect(isAlive(sleeper)).toBe(false); // the dead runner's auditor was ended by the correction
}, 180_000);

test("kill -9 while the auditor has changed the tree and committed: start puts it all back before it audits again", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n" });
  const dir = tempDir("kill9-audit-writes-");
  const env = {
    FINISH: join(dir, "finish"),
    STARTED: join(dir, "started"),
    AGENT_RUNS: join(dir, "agent-runs"),
    PROMPT: join(dir, "prompt"),
    PATH: testPath(),
  };
  const agent = join(dir, "agent.sh");
  writeFileSync(
    agent,
    '#!/bin/sh\ncat > /dev/null\necho ran >> "$AGENT_RUNS"\necho hello > hello.txt\nsed -i "s/- \\[ \\]/- [x]/" tasks.md\necho "<promise>COMPLETE</promise>"\n',
  );
  // The first audit rewrites the work, unticks the box, commits it all on the loop branch, leaves a staged and an
  // untracked file, then hangs until killed. Once FINISH exists: PASS.
  const auditor = join(dir, "auditor.sh");
  writeFileSync(
    auditor,
    "#!/bin/sh\n" +
      'if [ -e "$FINISH" ]; then cat > "$PROMPT"; echo "<audit>PASS</audit>"; exit 0; fi\ncat > /dev/null\n' +
      'echo scribbled > hello.txt\nsed -i "s/- \\[x\\]/- [ ]/" tasks.md\n' +
      "git -c user.name=a -c user.email=a@example.com commit -qam 'the auditor commits'\n" +
      "echo staged > staged.txt\ngit add staged.txt\necho notes > audit-notes.txt\n" +
      'echo $$ > "$STARTED"\nexec sleep 600\n',
  );
  chmodSync(agent, 0o755);
  chmodSync(auditor, 0o755);
  const args = ["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent, "--audit", "--audit-agent", "command", "--audit-cmd", auditor];
  const runner = spawnWtLoop([...args, "--on-complete", "keep"], { cwd: repo, env, stdout: "ignore", stderr: "ignore" });
  await waitFor("the auditor to start", () => existsSync(env.STARTED) && readFileSync(env.STARTED, "utf8").endsWith("\n"), 60_000, { whileRunning: runner });
  sleeper = Number(readFileSync(env.STARTED, "utf8"));
  runner.kill("SIGKILL");
  await runner.exited;
  const branch = readState(repo).checkpoint_branch;
  expect(git(repo, "log", "-1", "--format=%s", branch)).toBe("the auditor commits"); // what the kill left
  writeFileSync(env.FINISH, "");

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
