/**
 * A plain `wt-loop start` after a loop ended `stuck`, `stalled` or `stopped` continues it: the
 * previous run's options (task, change, agent, agent command, model, checkpoint, limits, done
 * criteria, completion, --notify, --verify, the budgets) are taken again, and any option given on the command line overrides its
 * remembered value. After `done` (or with no previous run) nothing is remembered.
 */
import type { State } from "../state/schema.ts";

const CONTINUES = ["stuck", "stalled", "stopped"] as const;

/** The options of `previous` in `LoopOptions` keys, or null when a new start does not continue it. */
export function rememberedOptions(previous: State | null): Record<string, unknown> | null {
  if (!previous || !(CONTINUES as readonly string[]).includes(previous.status)) return null;
  const p = previous;
  const opts: Record<string, unknown> = {
    task: p.task, change: p.change ?? undefined, done: p.done_criteria, max: p.max_iterations, maxRetries: p.max_retries,
    stallThreshold: p.stall_threshold, iterationTimeout: p.iteration_timeout_min, commandTimeout: p.command_timeout_sec,
    agent: p.agent, agentCmd: p.agent_cmd ?? undefined, model: p.model ?? undefined, checkpoint: p.checkpoint, onComplete: p.on_complete,
    notify: p.notify ?? undefined, maxWait: p.max_wait_hours,
    verify: p.verify ?? undefined, verifyTimeout: p.verify_timeout_min, maxCost: p.max_cost_usd ?? undefined, maxTokens: p.max_tokens ?? undefined,
  };
  return Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
}

/** The given options over the remembered ones, and the sentence that says so (null: nothing remembered). */
export function continueWith(previous: State | null, given: Record<string, unknown>): { options: Record<string, unknown>; note: string | null } {
  const remembered = rememberedOptions(previous);
  if (!remembered) return { options: given, note: null };
  const p = previous!;
  const overridden = Object.keys(given).filter((k) => k in remembered && given[k] !== remembered[k]);
  const agent = p.agent === "command" ? `command \`${p.agent_cmd}\`` : p.agent;
  const note =
    `Continuing the previous loop (${p.status}) with its options: agent ${agent}${p.model ? ` (${p.model})` : ""}, ` +
    `${p.max_iterations} iterations, ${p.max_retries} attempts per story, stall after ${p.stall_threshold}, ` +
    `${p.iteration_timeout_min} min per run, ${p.command_timeout_sec} s per command, ${p.checkpoint} checkpoints, ` +
    `done criteria ${p.done_criteria}, on complete ${p.on_complete}` +
    (p.verify ? `, verify \`${p.verify}\`` : "") +
    (p.max_cost_usd ? `, --max-cost ${p.max_cost_usd}` : "") +
    (p.max_tokens ? `, --max-tokens ${p.max_tokens}` : "") +
    "." +
    (overridden.length ? ` Given here instead: ${overridden.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ")}.` : "");
  return { options: { ...remembered, ...given }, note };
}
