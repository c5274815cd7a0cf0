/**
 * Mistakes in the options alone: combinations that can never work, whatever is installed here. They are
 * said first, before doctor's checks look at this machine (setup/doctor-checks.ts), so a flag mistake is
 * never hidden behind a missing program: `--max-cost` with an agent that reports no cost is named even
 * when that agent is not installed either.
 */
import { reviewFlagMistake, roleFlagMistake } from "../agents/role-flags.ts";
import { auditFlagMistake } from "../agents/auditor.ts";
import { UserError } from "../errors.ts";
import { refuseParallelConflicts } from "../parallel/requirements.ts";
import { parseEndpoints } from "../proc/sandbox-net.ts";
import { parseEnvNames } from "../proc/sandbox.ts";
import { refuseUnmeasurable } from "../record/budget.ts";
import type { LoopOptions } from "./options.ts";

export function refuseOptionMistakes(opts: LoopOptions): void {
  const mistake =
    roleFlagMistake(opts.agent, { agentCmd: opts.agentCmd ?? null }) ??
    reviewFlagMistake(opts.review, { agentCmd: opts.reviewCmd ?? null, model: opts.reviewModel ?? null }) ??
    auditFlagMistake(opts);
  if (mistake) throw new UserError(mistake);
  refuseUnmeasurable(opts.agent, opts);
  refuseParallelConflicts(opts);
  if (opts.sandbox) parseEndpoints(opts.sandboxAllow);
  if (opts.sandbox) parseEnvNames(opts.sandboxEnv);
  if (opts.watch && opts.onComplete !== "pr" && opts.pr === undefined)
    throw new UserError(
      `--watch watches the pull request the loop opens at its end: give --on-complete pr too (or --pr N), not --on-complete ${opts.onComplete}.`,
    );
  if (opts.issueSync && !opts.issue && !opts.issues)
    throw new UserError("--issue-sync writes progress back to the issue the stories came from: give --issue N (or --issues SEARCH) too.");
}
