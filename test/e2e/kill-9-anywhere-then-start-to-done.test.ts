// A laptop losing power at any moment, again and again: seeded random SIGKILLs of the runner, each
// aimed at one phase (the agent running, a checkpoint being made, --verify, the completion), each
// followed by a plain `wt-loop start`, until done — with branch and with stash checkpoints. At the end
// every story's work is there, the user's work and stash are as they were, no `ralph:` entry, no
// process of the loop and no temporary file in `.claude/` are left. `KILL_SEED=N` replays a run.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RUN_TAG_VAR } from "../../src/proc/contain.ts";
import { isAlive } from "../../src/proc/pid.ts";
import { fakeAgent, ROOT, spawnWtLoop, testPath } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { expectIntact, ralphStashes, record, userWorkRepo, type Mode } from "../checkpoint/user-work.ts";
import { seeded } from "../helpers/seeded.ts";

const sleepers: number[] = []; // the hung fake git calls' sleeps: the test's own, not the loop's
afterEach(() => {
  for (const pid of sleepers.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

type Phase = "agent" | "checkpoint" | "verify" | "completion";
/** Git arguments (test/fixtures/git-hang matches any one) that only a checkpoint, or only the completion, passes. */
const CHECKPOINT_GIT: Record<Mode, string[]> = { branch: ["write-tree", "commit"], stash: ["write-tree", "commit-tree", "store"] };
const COMPLETION_GIT: Record<Mode, string> = { branch: "-d", stash: "--format=%H %gs" };

const STORIES = ["1.1", "2.1", "3.1", "4.1"];
const TASKS = "## 1. A\n- [ ] 1.1 a\n\n## 2. B\n- [ ] 2.1 b\n\n## 3. C\n- [ ] 3.1 c\n\n## 4. D\n- [ ] 4.1 d\n";

/** The live processes carrying a run tag of this worktree: the loop's agents, verify commands and their children. */
function loopProcesses(worktree: string): number[] {
  const needle = `${RUN_TAG_VAR}=${worktree}#`;
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "utf8").includes(needle);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    });
}

/** Every file under `.claude/` that looks like a write cut short. */
const tempFiles = (repo: string) => (readdirSync(join(repo, ".claude"), { recursive: true }) as string[]).filter((f) => /\.tmp$|\.tmp\.|~$/.test(f));

const open = (repo: string) => (readFileSync(join(repo, "tasks.md"), "utf8").match(/- \[ \]/g) ?? []).length;

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  test("six seeded kills at every phase, each followed by a plain start until done: nothing lost, nothing left", async () => {
    const seed = Number(process.env.KILL_SEED ?? Date.now() % 1_000_000);
    console.log(`random kills (${mode}): KILL_SEED=${seed}`);
    const random = seeded(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    // Every phase once, more at random; the completion last, as only a loop with stories left can be killed elsewhere.
    const atEnd: Phase[] = ["completion"];
    const early: Phase[] = ["agent", "checkpoint", "verify"];
    while (early.length + atEnd.length < 6) early.push(pick(["agent", "checkpoint", "verify"] as const));
    for (let i = early.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [early[i], early[j]] = [early[j]!, early[i]!];
    }
    const phases: Phase[] = [...early, ...atEnd];

    const repo = userWorkRepo(TASKS);
    const before = record(repo);
    const dir = tempDir("kills-");
    const hang = join(dir, "hang.flag");
    const verifyArm = join(dir, "verify.arm");
    const verifyFlag = join(dir, "verify.running");
    // Passes, unless armed: then says so and hangs, as a slow test suite would when the power goes.
    const verify = `if [ -e ${verifyArm} ]; then rm -f ${verifyArm}; : > ${verifyFlag}; exec sleep 300; fi`;
    const env = { PATH: `${join(ROOT, "test/fixtures/git-hang")}:${testPath()}`, REAL_GIT: Bun.which("git")!, FAKE_GIT_HANG: hang };
    const work = (n: number): object[] => Array.from({ length: 8 }, () => COMPLETE({ write: { [join(repo, "work-{task}.txt")]: `story {task}, run ${n}\n` } }));
    // The first start names every option; later ones only the strategy (the rest is remembered),
    // unless a kill came before the state was first written.
    const args = () =>
      existsSync(join(repo, ".claude/loop-state.json")) ? ["--checkpoint", mode] : ["--checkpoint", mode, "--on-complete", "cleanup", "--verify", verify];

    for (const [n, phase] of phases.entries()) {
      let steps = work(n);
      let ready: () => boolean;
      let on = "";
      if (phase === "agent") {
        // The agent of the first story, or of a later one while two stories are left for the rest.
        const started = join(dir, `agent-${n}.started`);
        const done = open(repo) > 2 ? Math.floor(random() * 2) : 0;
        steps = [...work(n).slice(0, done), { hangSec: 300, write: { [join(repo, "work-{task}.txt")]: "a killed attempt\n", [started]: "" } }];
        ready = () => existsSync(started);
      } else if (phase === "verify") {
        writeFileSync(verifyArm, "");
        ready = () => existsSync(verifyFlag);
      } else {
        on = phase === "completion" ? COMPLETION_GIT[mode] : pick(CHECKPOINT_GIT[mode]);
        writeFileSync(hang, "");
        ready = () => existsSync(`${hang}.hanging`);
      }
      const after = phase !== "agent" && phase !== "verify" && random() < 0.5 ? { FAKE_GIT_HANG_AFTER: "1" } : {};
      console.log(`kill ${n + 1}: ${phase}${on ? ` (git ${on}${"FAKE_GIT_HANG_AFTER" in after ? ", after it ran" : ""})` : ""}`);
      const agent = fakeAgent(steps, tempDir("fake-agent-"));
      const proc = spawnWtLoop(["start", "--terminal", "inline", ...args()], {
        cwd: repo,
        env: { ...agent.env, ...env, FAKE_GIT_HANG_ON: on || "none", ...after },
        stdout: "ignore",
        stderr: "ignore",
      });
      await waitFor(`kill ${n + 1} (${phase}${on ? `, git ${on}` : ""}) to be reached; KILL_SEED=${seed}`, ready, 30_000, { whileRunning: proc });
      const state = existsSync(join(repo, ".claude/loop-state.json")) ? readState(repo) : null;
      if (state?.status === "running") expect(state.runner_pid).toBe(proc.pid);
      proc.kill("SIGKILL");
      await proc.exited;
      // The scan that must come up empty at the end sees what a killed runner's agent or verify leaves.
      if (phase === "agent" || phase === "verify") expect(loopProcesses(readState(repo).worktree_path).length).toBeGreaterThan(0);
      if (existsSync(`${hang}.hanging`)) {
        sleepers.push(Number(readFileSync(`${hang}.hanging`, "utf8")));
        rmSync(`${hang}.hanging`);
      }
      rmSync(hang, { force: true });
      rmSync(verifyFlag, { force: true });
      rmSync(verifyArm, { force: true });
    }

    let last = await runLoop(repo, work(10), args());
    for (let i = 0; i < 2 && last.state.status !== "done"; i++) last = await runLoop(repo, work(11 + i), args());
    const why = `KILL_SEED=${seed}; last output: ${last.stdout.slice(-1500)}${last.stderr.slice(-1500)}`;
    expect([last.state.status, why]).toEqual(["done", why]);
    expect(open(repo)).toBe(0);
    for (const story of STORIES) expect(readFileSync(join(repo, `work-${story}.txt`), "utf8")).toStartWith(`story ${story}, run `);
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
    expect(ralphStashes(repo)).toEqual([]);
    expectIntact(repo, before);
    expect(loopProcesses(last.state.worktree_path)).toEqual([]);
    expect(tempFiles(repo)).toEqual([]);
  }, 150_000);
});
