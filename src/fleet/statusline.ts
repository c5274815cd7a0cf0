/**
 * The line Claude Code's `statusLine` shows (`wt-loop statusline`). Called on every refresh of the
 * status bar, so it loads no zod and runs no git: the worktree is found by walking up to the folder
 * holding `.git` (a folder in the main worktree, a file in a linked one), and the state file is
 * read as plain JSON. Anything unexpected prints nothing: a status bar must never show an error.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { ownedIn, pidInUse } from "../proc/owned.ts";
import { hasProcfs, procfs } from "../proc/procfs.ts";
import { spent } from "../record/budget.ts";
import { isFinal } from "../state/final.ts";
import { loopPaths } from "../state/paths.ts";
import { clockTime, formatCost, formatTokens } from "../text/format.ts";
import { inertLine } from "../term/inert.ts";
import { print } from "../term/print.ts";

/** Claude Code's status line input: `workspace.current_dir` (and `cwd`, its older name), as documented. */
export function dirFromInput(text: string, fallback: string): string {
  try {
    const input = JSON.parse(text) as { workspace?: { current_dir?: unknown }; cwd?: unknown };
    const dir = input.workspace?.current_dir ?? input.cwd;
    return typeof dir === "string" && dir ? dir : fallback;
  } catch {
    return fallback;
  }
}

export function worktreeOf(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (dirname(d) === d) return null;
  }
}

interface StateLike {
  status?: string;
  worktree_path?: string;
  current_iteration?: number;
  max_iterations?: number;
  stories_total?: number;
  stories_completed?: number;
  current_story?: { index?: number; attempt?: number } | null;
  max_retries?: number;
  runner_pid?: number | null;
  runner_started?: string | null;
  completion?: string | null;
  checkpoint_sha?: string | null;
  stop_reason?: string | null;
  total_cost_usd?: number;
  total_tokens?: number;
  spent_before?: { cost_usd: number; tokens: number };
  max_cost_usd?: number | null;
  max_tokens?: number | null;
  waiting?: { until: string } | null;
  pause_requested?: boolean;
  lanes?: unknown[];
}

/** ` · $0.50/$1.20`, ` · 1,900/5,000 tokens`: spent of each budget set (all runs of the loop). */
function budgetPart(s: StateLike): string {
  const now = spent({ total_cost_usd: s.total_cost_usd ?? 0, total_tokens: s.total_tokens ?? 0, spent_before: s.spent_before });
  return (
    (s.max_cost_usd ? ` · ${formatCost(now.cost_usd)}/${formatCost(s.max_cost_usd)}` : "") +
    (s.max_tokens ? ` · ${formatTokens(now.tokens)}/${formatTokens(s.max_tokens)} tokens` : "")
  );
}

/**
 * The runner is alive as ours (/proc); where telling that needs a `ps` per refresh (macOS), only that
 * its pid is in use: a runner that died shows so, a pid reused since reads as the state recorded it.
 */
function runnerAlive(s: StateLike): boolean {
  if (typeof s.runner_pid !== "number") return false;
  if (!hasProcfs) return pidInUse(s.runner_pid);
  return ownedIn(procfs, { runner_pid: s.runner_pid, runner_started: s.runner_started ?? null, worktree_path: s.worktree_path ?? "" }).runner !== null;
}

/**
 * The loop's line, named for the product: "Ralph" stays only where the spec and the seed's loops need it — the
 * window title `Ralph: …` (text/window-title.ts: wt-tools finds a loop's window by it) and the `ralph/…` branch
 * and `ralph:…` stash names of the spec (checkpoint/strategy.ts) — and this command is wt-loop's own.
 */
export function statusLine(s: StateLike): string {
  const alive = runnerAlive(s);
  switch (s.status) {
    case "starting":
      return "wt-loop starting";
    case "paused":
      return alive ? `wt-loop paused ${s.current_iteration}/${s.max_iterations} · wt-loop resume` : "wt-loop stopped (runner died)";
    case "running": {
      if (!alive) return "wt-loop stopped (runner died)";
      const lanes = s.lanes?.length ?? 0;
      // With lanes (`--parallel`) several stories are at work: the stories complete, and how many lanes.
      const story = lanes ? s.stories_completed : (s.current_story?.index ?? s.stories_completed);
      const attempt = lanes
        ? ` · ${lanes === 1 ? "1 lane" : `${lanes} lanes`}`
        : (s.current_story?.attempt ?? 1) > 1
          ? ` · attempt ${s.current_story!.attempt}/${s.max_retries}`
          : "";
      const wait = s.waiting?.until ? ` · waiting until ${clockTime(Date.parse(s.waiting.until))}` : "";
      const pausing = s.pause_requested ? " · pausing" : "";
      return `wt-loop ${s.current_iteration}/${s.max_iterations} · story ${story}/${s.stories_total}${attempt}${wait}${pausing}${budgetPart(s)}`;
    }
    default:
      if (!s.status || !isFinal(s.status)) return "";
      const status = s.stop_reason === "budget" ? `${s.status} (budget)` : s.status;
      if (alive && s.completion === null && s.checkpoint_sha) return `wt-loop ${status} · keep or cleanup?`;
      return `wt-loop ${status}`;
  }
}

/** The line for the worktree containing `dir`, or "" when there is no loop there. */
export function statusLineFor(dir: string): string {
  const root = worktreeOf(dir);
  if (!root) return "";
  try {
    const s = JSON.parse(readFileSync(loopPaths(root).state, "utf8")) as StateLike;
    // A .claude shared with another worktree (a symlink) holds that worktree's loop, not this one's.
    if (typeof s.worktree_path !== "string" || realpathSync(s.worktree_path) !== realpathSync(root)) return "";
    return statusLine(s);
  } catch {
    return "";
  }
}

/** `wt-loop statusline`: Claude Code pipes its JSON; run by hand in a terminal there is nothing to wait for. */
export async function statusLineMain(): Promise<void> {
  const input = process.stdin.isTTY ? "" : await Bun.stdin.text();
  const line = statusLineFor(dirFromInput(input, process.cwd()));
  if (line) print(inertLine(line)); // one line, whatever an unvalidated state file holds
}
