/**
 * What the engine needs from the world, passed in by the runner (and by tests, with real git and
 * real agent programs): the engine and its helpers import these types and nothing that builds them.
 */
import type { AgentAdapter } from "../agents/adapter.ts";
import type { Checkpoint } from "../checkpoint/strategy.ts";
import type { LoopPaths } from "../state/paths.ts";
import type { Completion, FinalStatus, State } from "../state/schema.ts";
import type { StorySource } from "../stories/source.ts";
import type { LoopStore } from "../record/store.ts";
import type { Wrapper } from "../proc/spawn.ts";
import type { LanePlan, Lanes, MergeQueue } from "../parallel/ports.ts";
import type { EndAnswer } from "./view.ts";

export interface LoopDeps {
  paths: LoopPaths;
  source: StorySource;
  adapter: AgentAdapter;
  checkpoint: Checkpoint;
  env: Record<string, string | undefined>;
  /** `--sandbox`: the agent and `--verify` run inside it. */
  sandbox?: Wrapper | null;
  signal: AbortSignal;
  /** The loop's record (record/store.ts): the state it holds, saved and told to its watchers; the events. */
  store: LoopStore;
  /**
   * After the agent (or --verify) ran: the loop's own files it deleted or un-ignored are put back
   * (its lines in info/exclude; the lock where it is in `.claude/`), before anything looks at the
   * tree. The event log and the logs put themselves back; the state is rewritten by the next save.
   */
  reclaimFiles(): Promise<void>;
  setTitle(title: string): void;
  /**
   * Decides cleanup or keep at the end: at once (the option, a stop's answer) or by a question that
   * may wait for a long time (asked on a TTY when the option is `ask`).
   */
  chooseCompletion(status: FinalStatus): CompletionChoice;
  /**
   * `--on-complete pr`, after the completion kept the loop's branch: pushes it and opens or updates its pull
   * request (github/pull-request.ts); `record` is called as soon as the pull request is known. Returns what it did.
   */
  publish?(state: State, record: (pr: NonNullable<State["pull_request"]>) => Promise<void>): Promise<string>;
  /** `--parallel` above 1 (engine/lanes/scheduler.ts): the lanes, the merge queue, and the checkpoint of an attempt in a lane. */
  parallel?: ParallelDeps;
  /**
   * One account, one wait (limit-gate.ts): a limit the agent's service set for this loop's lanes or the
   * repository's other loops. Consulted before every agent run; told of every refusal. None: the loop waits alone.
   */
  limits?: LimitGate;
  /**
   * The run's tag every process of the agent (and --verify, --review) carries (proc/contain.ts): a lane works in
   * its own worktree but its processes are the loop's, ended with it after a kill. None: the worktree's.
   */
  runTag?: string;
}

export interface LimitGate {
  /** The limit in force now (until, the agent's words), or null. */
  held(): { until: number; reason: string } | null;
  /** A run was refused until `until`: everyone waits for the later of it and the limit already in force; returns that time. */
  refused(until: number, reason: string): number;
  /** Waits while a limit is in force; false when the stop came first. */
  pass(): Promise<boolean>;
}

export interface ParallelDeps {
  lanes: Lanes;
  queue: MergeQueue;
  checkpointIn(plan: LanePlan): Checkpoint;
}

/** `pr` (asked at the end): keep, then the push and the pull request, as `--on-complete pr` does. */
export type CompletionChoice = { kind: "now"; choice: Completion } | { kind: "ask"; answer: () => Promise<EndAnswer> };
