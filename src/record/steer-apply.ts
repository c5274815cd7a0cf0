/**
 * What a steering request (`wt-loop pause|resume|note|max`, the MCP tools, the loop screen's keys)
 * does to a running loop's state. Pure: the runner applies it to its own state between its saves
 * (steer-inbox.ts), so the state keeps one writer; the sentence goes back to whoever asked.
 */
import type { LoopEvent } from "./events.ts";
import type { State } from "../state/schema.ts";
import { plural } from "../text/format.ts";

export type SteerBody =
  | { kind: "pause" }
  | { kind: "resume" }
  | { kind: "max"; delta: number }
  | { kind: "max"; value: number }
  | { kind: "note"; text: string };

/** A request file: the body, and the run it was made for (a file that names no run of this runner is never applied). */
export type SteerRequest = SteerBody & { run: string };

export interface SteerAnswer {
  ok: boolean;
  message: string;
}

/** Longer notes belong in the tasks file or the learnings file: a prompt is not a place for pages. */
export const MAX_NOTE_CHARS = 4000;

/** The request as a request file may hold it, or null when it is not one (any other JSON a file holds). */
export function parseRequest(json: unknown): SteerRequest | null {
  if (typeof json !== "object" || json === null) return null;
  const r = json as Record<string, unknown>;
  if (typeof r.run !== "string") return null;
  const run = r.run;
  switch (r.kind) {
    case "pause":
    case "resume":
      return { run, kind: r.kind };
    case "note":
      return typeof r.text === "string" ? { run, kind: "note", text: r.text } : null;
    case "max":
      if (Number.isSafeInteger(r.delta)) return { run, kind: "max", delta: r.delta as number };
      if (Number.isSafeInteger(r.value)) return { run, kind: "max", value: r.value as number };
      return null;
    default:
      return null;
  }
}

/** The lowest limit the loop can take now: the iterations it has run, the one running included (never 0). */
export const lowestMax = (s: State) => Math.max(1, s.current_iteration);

/** Under --parallel a pause waits for every running lane to finish and be integrated (scheduler.ts). */
function pausesWhen(state: State): string {
  const ids = [...new Set((state.lanes ?? []).map((l) => l.story_id))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  if (!ids.length) return `when iteration ${state.current_iteration} ends`;
  return `once its running ${ids.length === 1 ? `lane (story ${ids[0]}) is` : `lanes (stories ${ids.join(", ")}) are`} finished and integrated`;
}

/** Applies `req` to `state` (in place); returns the answer and the events that record it. */
export function applySteer(state: State, req: SteerBody, now = Date.now()): SteerAnswer & { events: LoopEvent[] } {
  const name = state.worktree_name;
  const fail = (message: string) => ({ ok: false, message, events: [] });
  switch (req.kind) {
    case "pause":
      if (state.status === "paused") return fail(`The loop in ${name} is already paused. \`wt-loop resume\` goes on.`);
      if (state.pause_requested) return fail(`The loop in ${name} already pauses ${pausesWhen(state)}.`);
      state.pause_requested = true;
      return {
        ok: true,
        events: [],
        message: state.lanes?.length
          ? `The loop in ${name} will pause ${pausesWhen(state)} (no agent is interrupted; no new lane opens). \`wt-loop resume\` goes on.`
          : state.agent_pid !== null || state.current_story
            ? `The loop in ${name} will pause when iteration ${state.current_iteration} ends (the agent is not interrupted). \`wt-loop resume\` goes on.`
            : `The loop in ${name} pauses before its next iteration. \`wt-loop resume\` goes on.`,
      };
    case "resume": {
      if (state.status !== "paused") {
        if (!state.pause_requested) return fail(`The loop in ${name} is not paused (status: ${state.status}).`);
        state.pause_requested = false;
        return { ok: true, events: [], message: `The pause of the loop in ${name} was called off: it goes on without stopping.` };
      }
      const pausedMs = state.paused_since ? Math.max(0, now - Date.parse(state.paused_since)) : 0;
      Object.assign(state, { status: "running", pause_requested: false, paused_since: null, paused_ms: state.paused_ms + pausedMs });
      return {
        ok: true,
        events: [{ type: "Resumed", paused_ms: pausedMs }],
        message: `Resumed the loop in ${name}: iteration ${state.current_iteration + 1} starts now.`,
      };
    }
    case "max": {
      const from = state.max_iterations;
      const asked = "delta" in req ? from + req.delta : req.value;
      const floor = lowestMax(state);
      const to = Math.max(floor, asked);
      if (to === from)
        return fail(
          asked < floor
            ? `The loop in ${name} cannot end before ${plural(floor, "iteration")}: it has run (or is running) that many; its limit stays ${from}.`
            : `The iteration limit of the loop in ${name} is already ${from}.`,
        );
      state.max_iterations = to;
      const clamped = to !== asked ? ` (not ${asked}: ${plural(floor, "iteration")} ran or run already)` : "";
      return {
        ok: true,
        events: [{ type: "MaxIterationsChanged", from, to }],
        message: `${to > from ? "Raised" : "Lowered"} the iteration limit of the loop in ${name} from ${from} to ${to}${clamped}.`,
      };
    }
    case "note": {
      const text = req.text.trim();
      if (!text) return fail('The note is empty: write what the agent should know, e.g. `wt-loop note "use the v2 API"`.');
      if (text.length > MAX_NOTE_CHARS)
        return fail(`The note has ${text.length} characters; at most ${MAX_NOTE_CHARS} go into a prompt. Put longer guidance in the tasks file.`);
      state.notes.push({ text, added_at: new Date(now).toISOString() });
      return { ok: true, events: [{ type: "NoteAdded", text }], message: `Noted: the next prompt of the loop in ${name} carries it.` };
    }
  }
}
