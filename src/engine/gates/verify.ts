/**
 * `--verify CMD` (docs/verify-and-budgets.md): after an attempt's COMPLETE stands (its boxes ticked, or in manual
 * mode), CMD runs through `sh -c` in the worktree, contained like an agent run — its own process
 * group, the run's tag in its environment, the runner a subreaper — so a command that hangs, and
 * everything it started (a `setsid` server included), ends at `--verify-timeout` or on a stop.
 * A non-zero exit or a timeout rejects the attempt, and the reason carries the end of its output.
 */
import { open } from "node:fs/promises";
import { createLog } from "../../state/log-file.ts";
import { remeasured, type Changes } from "../../checkpoint/strategy.ts";
import { RUN_TAG_VAR } from "../../proc/contain.ts";
import { CommandError, start, type Wrapper } from "../../proc/spawn.ts";
import type { VerifyRun } from "../../state/schema.ts";
import { formatDuration } from "../../text/format.ts";
import type { LoopDeps } from "../ports.ts";
import { tagOf, type RunSite } from "../agent-run.ts";

/** How many lines of the end of the command's output the next prompt carries. */
export const VERIFY_TAIL_LINES = 60;
/** The tail is read from the last this-many bytes of the log, and each of its lines cut to LINE_MAX. */
const TAIL_BYTES = 64 * 1024;
const LINE_MAX = 500;

/** The command's log sits next to its iteration's agent log: `iter-NNN.jsonl` → `iter-NNN.verify.log`. */
export const verifyLogOf = (iterLog: string) => iterLog.replace(/\.jsonl$/, "") + ".verify.log";

export interface VerifyOptions {
  command: string;
  timeoutMin: number;
  cwd: string;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  logFile: string;
  /** The loop run's tag (proc/contain.ts runTag). */
  runTag: string;
  /** `--sandbox`: the command runs inside it, as the agent does. */
  sandbox?: Wrapper | null;
}

export type VerifyResult =
  | { verdict: "passed"; run: VerifyRun }
  | { verdict: "failed"; run: VerifyRun; reason: string }
  | { verdict: "stopped"; run: VerifyRun };

export async function runVerify(o: VerifyOptions): Promise<VerifyResult> {
  await createLog(o.logFile);
  const t0 = performance.now();
  const run = (exit_code: number | null, timed_out: boolean): VerifyRun => ({ exit_code, duration_ms: performance.now() - t0, timed_out, log_file: o.logFile });
  let ended: { code: number; reason: "exit" | "timeout" | "aborted" };
  try {
    // `exec 2>&1` first: one log with both streams interleaved as a terminal would show them.
    const proc = start(["sh", "-c", `exec 2>&1\n${o.command}`], {
      cwd: o.cwd,
      env: { ...o.env, [RUN_TAG_VAR]: o.runTag },
      contain: { tag: o.runTag },
      sandbox: o.sandbox ?? undefined,
      timeoutMs: o.timeoutMin * 60_000,
      signal: o.signal,
      stdoutFile: o.logFile,
    });
    ended = await proc.done;
  } catch (err) {
    if (err instanceof CommandError && err.reason === "aborted") return { verdict: "stopped", run: run(null, false) };
    throw err;
  }
  if (ended.reason === "aborted") return { verdict: "stopped", run: run(null, false) };
  const timedOut = ended.reason === "timeout";
  const r = run(timedOut ? null : ended.code, timedOut);
  if (!timedOut && ended.code === 0) return { verdict: "passed", run: r };
  const tail = await tailOf(o.logFile);
  const what = timedOut
    ? `did not finish within its limit of ${o.timeoutMin} min (--verify-timeout) and was ended, with every process it started`
    : `failed (exit ${ended.code}, after ${formatDuration(r.duration_ms)})`;
  const output = tail.length
    ? `The last ${tail.length === 1 ? "line" : `${tail.length} lines`} of its output (all of it is in ${o.logFile}):\n\n` +
      `${tail.map((l) => `    ${l}`).join("\n")}`
    : "It printed nothing.";
  return {
    verdict: "failed",
    run: r,
    reason: `You reported COMPLETE, but the verify command \`${o.command}\` ${what}. ${output}\n\nMake it pass (run it yourself), then report COMPLETE.`,
  };
}

/** The last VERIFY_TAIL_LINES lines of `file`, read from its end only: a log of any size costs 64 KB. */
async function tailOf(file: string): Promise<string[]> {
  const fh = await open(file, "r");
  try {
    const { size } = await fh.stat();
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, size - len);
    const lines = buf.toString("utf8").replace(/\r/g, "").split("\n");
    if (len < size) lines.shift(); // a partial first line
    while (lines.length && !lines.at(-1)!.trim()) lines.pop();
    return lines.slice(-VERIFY_TAIL_LINES).map((l) => (l.length > LINE_MAX ? `${l.slice(0, LINE_MAX)}…` : l));
  } finally {
    await fh.close();
  }
}

/** What the engine's judgement needs of an attempt: its verdict so far and what it changed. */
export interface Candidate extends Changes {
  result: { outcome: string; reason?: string };
  verify?: VerifyRun;
}

/**
 * The engine's side: runs `--verify` on a COMPLETE that stands and says whether it still stands.
 * What the command changed (a formatter, a build output that is not ignored) is part of the
 * candidate, so the attempt is measured again afterwards: a pass keeps those changes with the
 * agent's, a rejection reverts them too, and a command that moved a branch is rejected like an
 * agent that did. A stop during it leaves everything in the tree, as a stop during the agent does.
 */
export async function verifyClaim(site: RunSite, deps: LoopDeps, storyId: string, res: Candidate): Promise<boolean> {
  const { loop, iteration } = site;
  if (!loop.verify) return true;
  const logFile = verifyLogOf(deps.paths.iterLog(iteration));
  deps.store.emit({ type: "VerifyStart", story_id: storyId, iteration, command: loop.verify, log_file: logFile });
  const v = await runVerify({
    command: loop.verify,
    timeoutMin: loop.verify_timeout_min,
    cwd: site.worktree,
    env: deps.env,
    signal: deps.signal,
    logFile,
    runTag: tagOf(site, deps),
    sandbox: deps.sandbox,
  });
  res.verify = v.run;
  const { exit_code, timed_out, duration_ms } = v.run;
  deps.store.emit({ type: "VerifyEnd", story_id: storyId, iteration, passed: v.verdict === "passed", exit_code, timed_out, duration_ms, log_file: logFile });
  if (v.verdict === "stopped") {
    res.result = { outcome: "stopped", reason: "Stopped by the user during the verify command" };
    return false;
  }
  await deps.reclaimFiles(); // as after the agent: the command may have emptied info/exclude or deleted .claude
  remeasured(res, await deps.checkpoint.changes());
  if (v.verdict === "failed") res.result = { outcome: "rejected", reason: v.reason };
  else if (res.violation) res.result = { outcome: "rejected", reason: `The verify command passed, but: ${res.violation}` };
  return v.verdict === "passed" && !res.violation;
}
