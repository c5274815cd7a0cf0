// `--verify CMD` (issue 12): a COMPLETE counts only when the command passes; a failing or hanging
// command rejects the attempt, reverts it, and tells the next attempt why. Real git, real processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
/** A pid the command wrote; never 0 or empty, which `kill(0, 0)` would call alive (the test's own group). */
const pidIn = (file: string) => {
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!(pid > 1)) throw new Error(`${file} holds no pid: ${JSON.stringify(readFileSync(file, "utf8"))}`);
  return pid;
};

describe.each([["branch"], ["stash"]] as const)("--verify (%s checkpoints)", (checkpoint) => {
  test("a verify that fails once then passes: rejected and reverted, the second prompt carries the command and the end of its output, then done", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    // 100 numbered lines, then the verdict: the prompt gets the last 60 only.
    const verify = `i=1; while [ $i -le 100 ]; do echo "out-$i"; i=$((i+1)); done; echo "stderr says: x is $(cat x.txt)" >&2; grep -q good x.txt`;
    const seen = `ls > "$AGENT_DIR/ls-$n.txt"\n`;
    const r = await runEngine(repo, [seen + tickStory("1", "echo bad > x.txt"), seen + tickStory("1", "echo good > x.txt")], {
      checkpoint,
      verify,
      stallThreshold: 5,
    });
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i) => [i.attempt, i.outcome])).toEqual([
      [1, "rejected"],
      [2, "complete"],
    ]);
    const [first, second] = r.state.iterations;
    expect(first!.verify!.exit_code).toBe(1);
    expect(first!.verify!.timed_out).toBe(false);
    expect(second!.verify!.exit_code).toBe(0);
    expect(first!.verify!.log_file).toMatch(/iter-001\.verify\.log$/);
    expect(readFileSync(first!.verify!.log_file, "utf8")).toContain("out-1\n"); // the log holds all of it
    expect(readFileSync(first!.verify!.log_file, "utf8")).toContain("stderr says: x is bad");
    // Told up front, both times; the retry carries the failure and the end of the output.
    const p1 = readFileSync(join(r.agentDir, "prompt-1.txt"), "utf8");
    const p2 = readFileSync(join(r.agentDir, "prompt-2.txt"), "utf8");
    expect(p1).toContain(verify);
    expect(p2).toContain(`the verify command \`${verify}\` failed (exit 1`);
    expect(p2).toContain("stderr says: x is bad");
    expect(p2).toContain("out-100");
    expect(p2).toContain("out-42\n");
    expect(p2).not.toContain("out-41\n");
    // The rejected attempt was reverted: the second attempt started without x.txt.
    expect(readFileSync(join(r.agentDir, "ls-2.txt"), "utf8")).not.toContain("x.txt");
    expect(readFileSync(join(repo, "x.txt"), "utf8")).toBe("good\n");
  });

  test("a verify that hangs is ended at --verify-timeout with its children, a setsid one included; the attempt is rejected", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const dir = tempDir("verify-hang-");
    const verify =
      `sleep 300 & echo $! > ${dir}/child.pid; ` +
      `setsid -f sh -c 'echo $$ > ${dir}/setsid.tmp && mv ${dir}/setsid.tmp ${dir}/setsid.pid; exec sleep 300'; ` +
      `while [ ! -s ${dir}/setsid.pid ]; do sleep 0.02; done; echo waiting; sleep 300`;
    const t0 = performance.now();
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { checkpoint, verify, verifyTimeout: 0.05, maxRetries: 1 });
    const elapsed = performance.now() - t0;
    expect(r.state.status).toBe("stuck");
    const it = r.state.iterations[0]!;
    expect(it.outcome).toBe("rejected");
    expect(it.verify!.timed_out).toBe(true);
    expect(it.verify!.exit_code).toBeNull();
    expect(it.verify!.duration_ms).toBeGreaterThanOrEqual(3000);
    expect(it.reason).toContain("did not finish within its limit of 0.05 min");
    expect(it.reason).toContain("waiting");
    expect(elapsed).toBeLessThan(20_000);
    for (const f of ["child.pid", "setsid.pid"]) expect(alive(pidIn(join(dir, f)))).toBe(false);
  }, 30_000);

  test("a stop during the verify command ends the loop stopped: the command and its children end, the agent's work stays", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const dir = tempDir("verify-stop-");
    // `started` only once the setsid child has written its pid (setsid -f returns before the child runs).
    const verify =
      `setsid -f sh -c 'echo $$ > ${dir}/setsid.tmp && mv ${dir}/setsid.tmp ${dir}/setsid.pid; exec sleep 300'; ` +
      `while [ ! -s ${dir}/setsid.pid ]; do sleep 0.02; done; echo started > ${dir}/started; sleep 300`;
    const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], {
      checkpoint,
      verify,
      onEvent: (e, abort) => {
        if (e.type !== "VerifyStart") return;
        const wait = setInterval(() => existsSync(join(dir, "started")) && (clearInterval(wait), abort()), 20);
      },
    });
    expect(r.state.status).toBe("stopped");
    expect(r.state.stop_reason).toBe("user");
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["stopped"]);
    expect(alive(pidIn(join(dir, "setsid.pid")))).toBe(false);
    // Nothing lost: the agent's work and ticks are in the tree, not reverted.
    expect(readFileSync(join(repo, "x.txt"), "utf8")).toBe("good\n");
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1");
  });
});

test("what the verify command changes is part of the candidate: reverted with a rejected attempt (even one that changed nothing), committed with a passing one", async () => {
  const repo = makeRepo({ "README.md": "# r\n" });
  const verify = "date > made-by-verify.txt; test -f good.txt";
  const seen = `ls > "$AGENT_DIR/ls-$n.txt"\n`;
  const r = await runEngine(repo, [seen + "echo '<promise>COMPLETE</promise>'\n", seen + "touch good.txt\necho '<promise>COMPLETE</promise>'\n"], {
    done: "manual",
    task: "make good.txt",
    verify,
    stallThreshold: 5,
  });
  expect(r.state.status).toBe("done");
  expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected", "complete"]);
  expect(readFileSync(join(r.agentDir, "ls-2.txt"), "utf8")).not.toContain("made-by-verify.txt");
  expect(git(repo, "show", "--name-only", "--format=", "HEAD").split("\n").sort()).toEqual(["good.txt", "made-by-verify.txt"]);
});

test("a verify command that moves a branch is rejected like an agent that does, and the branch is put back", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  git(repo, "branch", "other");
  // Only the first run misbehaves ($AGENT_DIR is in the loop's environment, so the command sees it too).
  const verify =
    `[ -f "$AGENT_DIR/sneaked" ] || { touch "$AGENT_DIR/sneaked"; ` +
    `git -c user.name=v -c user.email=v@x commit -q --allow-empty -m sneaky && git branch -f other HEAD; }`;
  const r = await runEngine(repo, [tickStory("1", "echo good > x.txt")], { verify, stallThreshold: 5 });
  expect(r.state.status).toBe("done");
  expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected", "complete"]);
  expect(r.state.iterations[0]!.verify!.exit_code).toBe(0);
  expect(r.state.iterations[0]!.reason).toContain("The verify command passed, but:");
  expect(r.state.iterations[0]!.reason).toContain("other");
  expect(git(repo, "log", "--format=%s", "other")).not.toContain("sneaky");
  expect(git(repo, "log", "--format=%s", "HEAD")).not.toContain("sneaky");
});
