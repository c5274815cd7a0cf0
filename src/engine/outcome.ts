/**
 * How an agent run ended (docs/how-it-works.md). Only the agent's own final message counts: a promise that
 * appeared in a tool result or a file it read never reaches it.
 */
import type { AgentRun } from "../agents/run-agent.ts";

export type Classified =
  | { outcome: "complete" }
  | { outcome: "failed"; reason: string }
  | { outcome: "no_signal"; reason: string }
  | { outcome: "timeout"; reason: string }
  | { outcome: "stopped"; reason: string }
  | { outcome: "unavailable"; reason: string };

export function classify(run: AgentRun, timeoutMin: number): Classified {
  if (run.end === "aborted") return { outcome: "stopped", reason: "Stopped by the user during the agent run" };
  if (run.end === "timeout") return { outcome: "timeout", reason: `The agent run exceeded the iteration timeout of ${timeoutMin} min and was killed` };
  const promise = run.promise;
  if (promise?.kind === "complete") return { outcome: "complete" };
  if (promise?.kind === "failed") return { outcome: "failed", reason: promise.reason };
  const why =
    run.exitCode !== 0
      ? `the agent exited with code ${run.exitCode}`
      : run.done
        ? run.done.is_error
          ? `the agent ended with an error${run.done.errors.length ? `: ${run.done.errors.join("; ")}` : ""}`
          : "the agent ended without a <promise>"
        : "the agent's output had no final result";
  return { outcome: "no_signal", reason: `No promise: ${why}` };
}
