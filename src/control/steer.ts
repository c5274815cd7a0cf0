/**
 * Steering a running loop from outside its runner (docs/steering.md): pause after the current iteration,
 * resume, raise or lower the iteration limit, leave a note for the next prompt. The one mechanism
 * behind `wt-loop pause|resume|note|max`, the MCP tools and the loop screen's keys: each function
 * returns the sentence to show, or throws a UserError saying why the request could not apply.
 *
 * A request is a file the runner picks up (steer-inbox.ts), never a signal: nothing is sent to a pid,
 * and only the runner writes the state. The sender waits for the runner's answer; when the runner
 * ends or dies first, the sender takes its request back (whoever renames the file first wins), so a
 * request is either applied and answered or withdrawn and refused — never left for a later run.
 */
import { closeSync, readFileSync, unlinkSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { ownedBy } from "../proc/pid.ts";
import { loopRoot, openSafe, writeFileSafe } from "../proc/safe-fs.ts";
import type { LoopFiles } from "../state/paths.ts";
import { isFinal } from "../state/final.ts";
import type { State } from "../state/schema.ts";
import { readState } from "../state/store.ts";
import { correctDeadRunner } from "./liveness.ts";
import type { SteerAnswer, SteerBody } from "../record/steer-apply.ts";
import { ANSWER_SUFFIX, REQUEST_SUFFIX } from "../engine/steer-inbox.ts";

const POLL_MS = 50;
/** The runner looks every 250 ms; a loaded machine may take longer, never this long. */
const ANSWER_WITHIN_MS = 30_000;

export const pauseLoop = (paths: LoopFiles) => steer(paths, { kind: "pause" });
export const resumeLoop = (paths: LoopFiles) => steer(paths, { kind: "resume" });
export const changeMaxIterations = (paths: LoopFiles, delta: number) => steer(paths, { kind: "max", delta: whole(delta, "change") });
export const setMaxIterations = (paths: LoopFiles, value: number) => {
  if (!Number.isSafeInteger(value) || value < 1) throw new UserError(`The iteration limit must be a whole number of at least 1 (got ${value}).`);
  return steer(paths, { kind: "max", value });
};
export const addNote = (paths: LoopFiles, text: string) => {
  if (!text.trim()) throw new UserError('The note is empty: write what the agent should know, e.g. `wt-loop note "use the v2 API"`.');
  return steer(paths, { kind: "note", text });
};

function whole(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n === 0) throw new UserError(`The ${what} of the iteration limit must be a whole number other than 0 (got ${n}).`);
  return n;
}

/** A loop whose runner can take a request: running or paused, its runner provably ours and alive. */
async function steerable(paths: LoopFiles): Promise<State> {
  const state = await readState(paths.state);
  if (!state) throw new UserError(`No loop has run here yet (no ${paths.state}). Start one with \`wt-loop start\`.`);
  const note = await correctDeadRunner(paths.state, state);
  if (note) throw new UserError(`${note} Nothing to steer: \`wt-loop start\` continues the loop.`);
  if (state.status === "starting") throw new UserError(`The loop in ${state.worktree_name} is starting: try again once it runs (\`wt-loop status\`).`);
  if ((state.status !== "running" && state.status !== "paused") || ownedBy(state).runner === null)
    throw new UserError(`No loop is running in ${state.worktree_name} (status: ${state.status}): nothing to steer. \`wt-loop start\` begins or continues one.`);
  return state;
}

async function steer(paths: LoopFiles, body: SteerBody): Promise<string> {
  const state = await steerable(paths);
  const root = loopRoot(paths.requests);
  // Ordered by time, then unique: two requests at once are two files, applied in the order they came.
  const id = `${Date.now().toString().padStart(15, "0")}-${process.pid}-${randomBytes(4).toString("hex")}`;
  const request = join(paths.requests, id + REQUEST_SUFFIX);
  const answer = join(paths.requests, id + ANSWER_SUFFIX);
  writeFileSafe(root, request, JSON.stringify({ ...body, run: state.started_at }) + "\n");
  const deadline = Date.now() + ANSWER_WITHIN_MS;
  while (true) {
    await Bun.sleep(POLL_MS);
    const a = readAnswer(root, answer);
    if (a) {
      unlinkQuietly(answer);
      if (!a.ok) throw new UserError(a.message);
      return a.message;
    }
    const now = await readState(paths.state).catch(() => null);
    const gone = !now || now.started_at !== state.started_at || isFinal(now.status) || ownedBy(now).runner === null;
    if (!gone && Date.now() < deadline) continue;
    if (withdraw(request)) {
      if (!gone)
        throw new UserError(
          `The loop's runner (pid ${state.runner_pid}) did not take the request within ${ANSWER_WITHIN_MS / 1000} s; it was withdrawn. Try again.`,
        );
      if (now && isFinal(now.status))
        throw new UserError(`The loop in ${state.worktree_name} ended (${now.status}) before it took the request: nothing was changed.`);
      const note = now ? await correctDeadRunner(paths.state, now) : null;
      throw new UserError(`The loop's runner (pid ${state.runner_pid}) ended before it took the request: nothing was changed.${note ? ` ${note}` : ""}`);
    }
    // The runner took it: its answer follows its save, unless it died in between (or hangs).
    const dead = ownedBy(now ?? state).runner === null;
    if ((dead || Date.now() > deadline + ANSWER_WITHIN_MS) && !readAnswer(root, answer)) {
      await Bun.sleep(POLL_MS);
      if (!readAnswer(root, answer))
        throw new UserError(`The loop's runner ${dead ? "ended" : "stopped answering"} while it applied the request; \`wt-loop status\` shows whether it did.`);
    }
  }
}

/** Takes an untaken request back; false when the runner had taken it already. */
function withdraw(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function readAnswer(root: string, path: string): SteerAnswer | null {
  try {
    const fd = openSafe(root, path, "read");
    try {
      const a = JSON.parse(readFileSync(fd, "utf8")) as Partial<SteerAnswer>;
      return typeof a.ok === "boolean" && typeof a.message === "string" ? { ok: a.ok, message: a.message } : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null; // not there yet
  }
}
