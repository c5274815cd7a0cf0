/**
 * States in the seed's format (src/state/seed.ts): what wt-tools' bash wt-loop writes — no schema_version,
 * `terminal_pid`, its own token fields, times from `date` in any shape — and what a hand edit or a crash
 * leaves: wrong types, missing fields, statuses it never had, one iteration that is not one.
 */
import type { Rng } from "./rng.ts";
import { PID, WT, type Runner } from "./our-state.ts";
import { plain, text } from "./texts.ts";
import { seedTime, T0 } from "./times.ts";

const MAX = Number.MAX_SAFE_INTEGER;
/** A number the seed's fields may hold: mostly a count, sometimes junk (the reader takes 0). */
const num = (r: Rng, n: number) =>
  r.weighted<unknown>([
    [12, n],
    [1, -n],
    [1, n + 0.5],
    [1, String(n)],
    [1, null],
    [1, MAX + 2],
    [1, 1e300],
  ]);

export function seedState(r: Rng, o: { iterations: number; runner: Runner }): Record<string, unknown> {
  const gap = Math.max(1, Math.floor((26 * 3_600_000) / Math.max(1, o.iterations)));
  const iterations: unknown[] = Array.from({ length: o.iterations }, (_, i) => {
    const at = T0 + i * gap;
    const it: Record<string, unknown> = {
      n: i + 1,
      started: seedTime(r, at),
      ended: seedTime(
        r,
        at +
          r.weighted([
            [8, r.int(1000, 900_000)],
            [1, 0],
            [1, -60_000],
          ] as const),
      ),
      done_check: r.weighted<unknown>([
        [5, r.chance(0.5)],
        [1, "true"],
        [1, 1],
      ]),
      commits: r.weighted<unknown>([
        [5, r.chance(0.5) ? [] : [r.hex(40)]],
        [1, [r.hex(40), 7]],
        [1, "abc"],
        [1, null],
      ]),
      tokens_used: num(r, r.int(0, 200_000)),
      timed_out: r.weighted<unknown>([
        [6, false],
        [1, true],
        [1, "yes"],
      ]),
      log_file: r.chance(0.9) ? `${WT}/.claude/logs/ralph-iter-${String(i + 1).padStart(3, "0")}.log` : 42,
    };
    if (r.chance(0.5)) {
      it.input_tokens = num(r, r.int(0, 100_000));
      it.output_tokens = num(r, r.int(0, 20_000));
      it.cache_read_tokens = num(r, r.int(0, 1_000_000));
      it.cache_create_tokens = num(r, r.int(0, 50_000));
    }
    if (r.chance(0.03)) it.input_tokens = MAX - r.int(0, 10); // sums past 2^53
    if (r.chance(0.05)) it.extra = { anything: true };
    return it;
  });
  // One iteration that is not one makes the whole list unknown (the reader's catch).
  if (iterations.length && r.chance(0.05)) iterations[r.int(0, iterations.length - 1)] = r.pick<unknown>([{ n: 0 }, { n: "3" }, null, [], { n: 1.5 }]);
  const status = r.weighted<unknown>([
    [10, r.pick(["running", "paused", "done", "stuck", "stalled", "stopped", "starting"])],
    [1, "crashed"],
    [1, ""],
  ]);
  const s: Record<string, unknown> = {
    worktree_name: r.chance(0.95) ? "__WT_NAME__" : text(r),
    task: r.weighted<unknown>([
      [6, plain(r, 8)],
      [3, text(r)],
      [1, null],
    ]),
    done_criteria: r.weighted<unknown>([
      [6, "tasks"],
      [2, "manual"],
      [1, "openspec"],
      [1, 3],
    ]),
    max_iterations: num(
      r,
      r.weighted([
        [5, Math.max(1, o.iterations)],
        [1, 0],
        [1, 30],
      ] as const),
    ),
    current_iteration: num(r, o.iterations),
    status,
    terminal_pid: terminalPid(r, o.runner),
    started_at: seedTime(r, T0),
    stall_threshold: num(r, 2),
    iteration_timeout_min: num(r, r.pick([45, 0, 1.5])),
    total_tokens: num(r, r.int(0, 5_000_000)),
    model: r.weighted<unknown>([
      [5, null],
      [2, "opus"],
      [1, 7],
      [1, text(r)],
    ]),
    change: r.weighted<unknown>([
      [5, null],
      [3, "add-login"],
      [1, 5],
    ]),
    iterations,
  };
  if (r.chance(0.3)) s.total_input_tokens = r.int(0, 1000);
  if (r.chance(0.1)) s.ralph_extra = "a field of wt-tools' own";
  if (r.chance(0.05)) s.started_at = 20261121; // not a string: not the seed's format either
  if (r.chance(0.05)) delete s[r.pick(["worktree_name", "status", "started_at", "iterations", "task"])];
  return s;
}

function terminalPid(r: Rng, runner: Runner): unknown {
  switch (runner) {
    case "none":
      return r.weighted<unknown>([
        [8, null],
        [1, 0],
        [1, "123"],
      ]);
    case "own":
      return PID.own;
    case "dead":
      return PID.dead;
    case "foreign":
    case "foreign-wrong-start":
      return PID.foreign;
    case "pid1":
      return 1;
  }
}
