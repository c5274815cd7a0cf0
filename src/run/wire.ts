/**
 * One wiring of the engine (the runner's, and the tests' through test/helpers/engine.ts): the loop's record
 * (its store), the agent, the checkpoint of its strategy, the lanes of --parallel and the repository's
 * usage-limit note, built from the state the store holds. What differs between a runner and a test — the
 * screen, the lock, the question at the end — comes in as `world`.
 */
import { adapterFor } from "../agents/registry.ts";
import { branchCheckpoint } from "../checkpoint/branch.ts";
import type { Git } from "../checkpoint/git.ts";
import { stashCheckpoint } from "../checkpoint/stash.ts";
import { loopBranchName } from "../checkpoint/strategy.ts";
import { fileGate, limitFileOf } from "../engine/gates/limit-gate.ts";
import type { LoopDeps } from "../engine/ports.ts";
import { laneWiring } from "../parallel/wiring.ts";
import type { LoopStore } from "../record/store.ts";
import type { View } from "../engine/view.ts";
import { runPaths } from "../state/paths.ts";
import type { StorySource } from "../stories/source.ts";

export type LoopWorld = Pick<LoopDeps, "env" | "signal" | "reclaimFiles" | "setTitle" | "chooseCompletion" | "sandbox" | "publish" | "watchPr">;

export async function wireLoop(store: LoopStore, git: Git, source: StorySource, world: LoopWorld): Promise<LoopDeps> {
  const state = store.state;
  const name = state.change ?? state.worktree_name;
  return {
    ...world,
    store,
    paths: runPaths(state.worktree_path, state.started_at),
    source,
    adapter: adapterFor(state.agent),
    checkpoint: state.checkpoint === "branch" ? branchCheckpoint(git, name) : stashCheckpoint(git, name, state.checkpoint_stashes ?? []),
    // --parallel above 1: lanes and the merge queue; every loop: the repository's usage-limit note of this agent.
    ...(state.parallel > 1 ? { parallel: await laneWiring(git, loopBranchName(name)) } : {}),
    limits: fileGate(limitFileOf(await git.commonDir(), state.agent), world.signal),
  };
}

/**
 * The runner's view sees the loop from the store, in memory: its state now and after each write (the same
 * object the engine changes), each event as it happens and again once logged, with its place in the log.
 * Returns the unsubscribe.
 */
export function showStore(store: LoopStore, view: Pick<View, "event" | "logged" | "state">): () => void {
  view.state?.(store.state);
  return store.subscribe((change) => {
    if (change.kind === "event") view.event(change.event);
    else if (change.kind === "logged") view.logged?.(change.event, change.at, store);
    else view.state?.(change.state);
  });
}
