/**
 * One account, one wait (docs/parallel.md, "How lanes run"; docs/agents.md). When the agent's service refuses a
 * run for a limit, every lane of the loop waits for the same reset, and lanes not yet started do not start
 * meanwhile: the scheduler holds one gate and every lane's `runWhenAvailable` goes through it. Other loops of the
 * same repository with the same agent learn of it from a small file under the common git dir
 * (`wt-loop/limits/<agent>.json`: `{ "until": ISO, "reason": … }`, written whole by a rename), which every
 * loop's `runWhenAvailable` reads before it runs the agent.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { writeFileSafe } from "../../proc/safe-fs.ts";
import { z } from "zod";
import type { LimitGate, LoopDeps } from "../ports.ts";
import { sleepUntil } from "./unavailable.ts";

const LimitFile = z.object({ until: z.string(), reason: z.string() });

/** Where the loops of a repository (its common git dir) note a limit of `agent`. */
export const limitFileOf = (commonDir: string, agent: string) => join(commonDir, "wt-loop", "limits", `${agent}.json`);

/** The repository-wide gate of one agent: its file only. */
export function fileGate(file: string, signal: AbortSignal): LimitGate {
  const read = () => {
    try {
      const f = LimitFile.parse(JSON.parse(readFileSync(file, "utf8")));
      const until = Date.parse(f.until);
      return until > Date.now() ? { until, reason: f.reason } : null;
    } catch {
      return null; // none, or torn by hand: a limit nobody can read holds nothing
    }
  };
  const gate: LimitGate = {
    held: read,
    refused(until, reason) {
      const now = read();
      if (now && now.until >= until) return now.until;
      try {
        // Whole or not at all (a reader never sees half a file), and never through a link: the common git dir
        // is the agent's to write, and a temp name with the runner's pid in it sent the write anywhere.
        writeFileSafe(resolve(file, "../../.."), file, JSON.stringify({ until: new Date(until).toISOString(), reason }) + "\n");
      } catch {
        // best effort: this loop waits anyway; only the other loops would not know
      }
      return until;
    },
    pass: () => waitWhile(gate, signal),
  };
  return gate;
}

/** The scheduler's gate: this loop's lanes share one limit, and the repository's file (`deps.limits`) when there is one. */
export function limitGate(deps: LoopDeps, signal: AbortSignal): LimitGate {
  let mine: { until: number; reason: string } | null = null;
  const outer = deps.limits;
  const gate: LimitGate = {
    held() {
      const other = outer?.held() ?? null;
      const own = mine && mine.until > Date.now() ? mine : null;
      return own && (!other || own.until >= other.until) ? own : other;
    },
    refused(until, reason) {
      const all = Math.max(until, outer?.refused(until, reason) ?? 0, mine?.until ?? 0);
      mine = { until: all, reason };
      return all;
    },
    pass: () => waitWhile(gate, signal),
  };
  return gate;
}

async function waitWhile(gate: LimitGate, signal: AbortSignal): Promise<boolean> {
  for (let h = gate.held(); h; h = gate.held()) if (!(await sleepUntil(h.until, signal))) return false;
  return !signal.aborted;
}
