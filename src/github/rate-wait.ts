/**
 * GitHub's rate limit waited out, as an agent's usage limit is (docs/github.md): when `gh` says the limit is
 * used up, wait until the reset GitHub gives (`GET /rate_limit`, which does not count against it; else a
 * backoff from 30 s to 15 min), then do the step again — every caller's step is safe to do again. Bounded by
 * --max-wait, and cut short by the loop's stop signal. One mechanism for the start-up check, the push and the
 * pull request at the end, and `--watch`.
 */
import { UserError } from "../errors.ts";
import { sleepUntil } from "../proc/timer.ts";
import { clockTime } from "../text/format.ts";
import { GhRateLimited, ghApi, type GhContext } from "./gh.ts";

export interface RateWait {
  /** Told when it waits, and until when. */
  onWait?(until: number, reason: string): void | Promise<void>;
  /** Ends a wait at once (a stop): the step then fails with `RateWaitStopped`. */
  signal?: AbortSignal;
}

/** A stop came while GitHub's rate limit was waited out: nothing of the step was done after it. */
export class RateWaitStopped extends UserError {
  override name = "RateWaitStopped";
}

/** Before the loop starts: the wait is said as it begins (the start-up's own notes). */
export const startupWait = (warn: (message: string) => void): RateWait => ({
  onWait: (until, reason) => warn(`${reason}: waiting until ${clockTime(until)} (within --max-wait) before the loop starts.`),
});

/** Multiplies the backoffs and the margin (not a reset time GitHub gave): the engine's own variable (engine/gates/unavailable.ts). */
const WAIT_SCALE_VAR = "WT_LOOP_WAIT_SCALE";
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 15 * 60_000;
const RESET_MARGIN_MS = 15_000;

/**
 * Runs `step` until it does not hit the rate limit. `maxWaitHours`: --max-wait; `again`: what the user runs once
 * the limit is lifted, for the message when waiting would pass it.
 */
export async function outwaitingRateLimit<T>(ctx: GhContext, maxWaitHours: number, again: string, wait: RateWait, step: () => Promise<T>): Promise<T> {
  const env = ctx.env ?? process.env;
  const scale = Number(env[WAIT_SCALE_VAR]) > 0 ? Number(env[WAIT_SCALE_VAR]) : 1;
  const began = Date.now();
  for (let tries = 1; ; tries++) {
    try {
      return await step();
    } catch (err) {
      if (!(err instanceof GhRateLimited)) throw err;
      const limited = err.message.replace(/ Wait a while.*$/, "");
      if (wait.signal?.aborted) throw new RateWaitStopped(`${limited} Stopped instead of waiting for it.`);
      const now = Date.now();
      const reset = await rateLimitReset(ctx, err.host);
      const until = reset && reset > now ? reset + RESET_MARGIN_MS * scale : now + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (tries - 1)) * scale;
      if (until - began > maxWaitHours * 3_600_000)
        throw new UserError(
          `${limited} Waiting until ${new Date(until).toISOString()} would pass --max-wait ${maxWaitHours} h: ${again} once the limit is lifted.`,
        );
      await wait.onWait?.(until, `GitHub's API rate limit is used up (${err.host})`);
      if (!(await sleepUntil(until, wait.signal ?? new AbortController().signal)))
        throw new RateWaitStopped(`${limited} Stopped while waiting for it to be lifted.`);
    }
  }
}

/** When GitHub lifts the limit (`GET /rate_limit` is not counted against it); null when it does not say. */
async function rateLimitReset(ctx: GhContext, host: string): Promise<number | null> {
  try {
    const j = await ghApi<{ resources?: Record<string, { remaining?: number; reset?: number }> }>(ctx, { host, owner: "-", name: "-" }, "rate_limit", {
      what: "reads its rate limit",
    });
    const spent = Object.values(j.resources ?? {}).filter((r) => r.remaining === 0 && typeof r.reset === "number");
    return spent.length ? Math.max(...spent.map((r) => r.reset! * 1000)) : null;
  } catch {
    return null;
  }
}
