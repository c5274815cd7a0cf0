/**
 * What the engine needs from the world, passed in by the runner (and by tests, with real git and
 * real agent programs): the engine and its helpers import these types and nothing that builds them.
 */
import type { AgentAdapter } from "../agents/adapter.ts";
import type { Checkpoint } from "../checkpoint/strategy.ts";
import type { LoopPaths } from "../state/paths.ts";
import type { Completion, FinalStatus, State } from "../state/schema.ts";
import type { StorySource } from "../stories/source.ts";
import type { LoopEvent } from "./events.ts";
import type { Wrapper } from "../proc/spawn.ts";

export interface LoopDeps {
  paths: LoopPaths;
  source: StorySource;
  adapter: AgentAdapter;
  checkpoint: Checkpoint;
  env: Record<string, string | undefined>;
  /** `--sandbox`: the agent and `--verify` run inside it. */
  sandbox?: Wrapper | null;
  signal: AbortSignal;
  emit(event: LoopEvent): void;
  save(state: State): Promise<void>;
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
}

export type CompletionChoice = { kind: "now"; choice: Completion } | { kind: "ask"; answer: () => Promise<Completion> };
