/**
 * Drives the engine directly through `LoopDeps`: real git in a temp repository, the real `command`
 * adapter running a scripted shell agent (one snippet per invocation, the last repeats), and the
 * events and saved states collected in memory. The engine's rules are tested here, once, so the
 * CLI end-to-end tests need not repeat each of them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { runLoop } from "../../src/engine/engine.ts";
import type { LoopDeps } from "../../src/engine/ports.ts";
import type { LoopEvent } from "../../src/record/events.ts";
import { LoopOptions } from "../../src/setup/options.ts";
import { initialState, makePlan } from "../../src/setup/plan.ts";
import { ensureExcluded } from "../../src/checkpoint/exclude.ts";
import { runPaths } from "../../src/state/paths.ts";
import { fileStore } from "../../src/record/store.ts";
import { wireLoop } from "../../src/run/wire.ts";
import type { State } from "../../src/state/schema.ts";
import { tempDir } from "./repo.ts";

export interface EngineRun {
  /** The agent's folder: `count`, `prompt-N.txt` */
  agentDir: string;
  state: State;
  events: LoopEvent[];
  saved: State[];
  /** Whether each of `saved` was forced to the disk (record/store.ts Durability). */
  forced: boolean[];
}

/**
 * Runs a loop in `repo` whose agent runs `steps[i]` (sh) on its i-th invocation, in the worktree,
 * with `$AGENT_DIR` holding `count`. A step ends with the agent's final text on stdout.
 */
export async function runEngine(
  repo: string,
  steps: string[],
  opts: Partial<LoopOptions> & {
    checkpoint?: "branch" | "stash";
    onEvent?: (e: LoopEvent, abort: () => void) => void;
    /** How the completion is decided (default: keep at once). */
    chooseCompletion?: LoopDeps["chooseCompletion"];
    /** More environment for the agent (the lane agent's folder). */
    env?: Record<string, string>;
  } = {},
): Promise<EngineRun> {
  const agentDir = tempDir("engine-agent-");
  steps.forEach((s, i) => writeFileSync(join(agentDir, `step-${i + 1}.sh`), s));
  writeFileSync(join(agentDir, "step-last.sh"), steps.at(-1) ?? "");
  const agentCmd =
    `n=$(( $(cat "$AGENT_DIR/count" 2>/dev/null || echo 0) + 1 )); echo $n > "$AGENT_DIR/count"; cat > "$AGENT_DIR/prompt-$n.txt"; ` +
    `f="$AGENT_DIR/step-$n.sh"; [ -f "$f" ] || f="$AGENT_DIR/step-last.sh"; . "$f"`;
  const { onEvent, chooseCompletion, env: more, ...given } = opts;
  const options = LoopOptions.parse({ agent: "command", agentCmd, onComplete: "keep", terminal: "inline", ...given });
  const wt = { path: repo, name: "repo" };
  const os = { cwd: repo, timeoutMs: 30_000, warn: () => {} };
  const plan = await makePlan(repo, options, os);
  const controller = new AbortController();
  const git = new Git({ cwd: repo, timeoutMs: options.commandTimeout * 1000, signal: controller.signal });
  const initial = initialState(wt, options, plan);
  const paths = runPaths(repo, initial.started_at);
  await ensureExcluded(git); // as the runner does: no checkpoint, revert or clean touches the loop's files
  mkdirSync(dirname(paths.iterLog(1)), { recursive: true });
  const events: LoopEvent[] = [];
  const saved: State[] = [];
  const forced: boolean[] = [];
  // The runner's store and wiring (run/wire.ts): the state file and event log are written in the repository's
  // `.claude/`, and what the runner's view would be told is collected here.
  const store = fileStore(initial, paths);
  store.subscribe((change) => {
    if (change.kind === "saved") {
      saved.push(structuredClone(change.state));
      forced.push(change.forced);
    } else if (change.kind === "event") {
      // (Each event is told again once logged, with its place in the log: collected once, as it happens.)
      events.push(change.event);
      onEvent?.(change.event, () => controller.abort());
    }
  });
  const deps = await wireLoop(store, git, plan.source, {
    env: { ...process.env, AGENT_DIR: agentDir, ...more },
    signal: controller.signal,
    reclaimFiles: () => ensureExcluded(git), // as the runner does (it also puts back its lock; here there is none)
    setTitle() {},
    chooseCompletion: chooseCompletion ?? (() => ({ kind: "now", choice: "keep" })),
  });
  try {
    const state = await runLoop(deps);
    return { agentDir, state, events, saved, forced };
  } finally {
    store.close();
  }
}

/** A shell step that ticks every box of the story whose heading line is `## {id}.` and reports COMPLETE. */
export const tickStory = (id: string, extra = "") =>
  `awk -v id="## ${id}." 'index($0, id) == 1 { on = 1 } /^## / && index($0, id) != 1 { on = 0 } { if (on) sub(/- \\[ \\]/, "- [x]"); print }' tasks.md > tasks.tmp && mv tasks.tmp tasks.md\n` +
  `${extra}\necho 'Done.'\necho '<promise>COMPLETE</promise>'\n`;
