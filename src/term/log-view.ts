/** What `log` shows of a run: its summary lines, then each iteration's events as the loop's window showed them. */
import { relative } from "node:path";
import type { RunLogSink } from "../record/run-log.ts";
import { runTimeMs, storiesKnown } from "../state/run-time.ts";
import type { State } from "../state/schema.ts";
import { between, field, formatDuration, plural, utcDateTime } from "../text/format.ts";
import { fieldWidth } from "./history-view.ts";
import { inertDeep } from "./inert.ts";
import { renderEvent } from "./render.ts";

/** The fields of the state are bounded (`field`): `log --json` has them whole. */
export function runHeader(state: State, width = fieldWidth()): string[] {
  const s = inertDeep(state);
  const ran = runTimeMs(s);
  return [
    `Run started ${utcDateTime(s.started_at)} · ${s.status} · ${storiesKnown(s) ? `${s.stories_completed}/${s.stories_total}` : "unknown"} stories · ` +
      `${plural(s.iterations.length, "iteration")} · ${ran === null ? "run time unknown" : formatDuration(ran)}`,
    `Task: ${field(s.task, width)}`,
    ...(s.reason ? [`Reason: ${field(s.reason, width)}`] : []),
  ];
}

/**
 * `log`'s iterations, printed as they are read (the event log may be hundreds of megabytes): each
 * event's lines as it comes, then what the event log did not say (the state's outcome, that the agent
 * left no events, the raw output's file).
 */
export function iterationPrinter(out: (text: string) => void, color: boolean, worktree: string, width = fieldWidth()): RunLogSink {
  let seen = { end: false, agent: false };
  return {
    begin(head) {
      seen = { end: false, agent: false };
      const h = inertDeep(head);
      if (!h.announced && h.kind === "audit") out(["", `━━ iteration ${h.n} · audit · round ${h.attempt ?? "-"}`].join("\n"));
      else if (!h.announced)
        out(
          ["", `━━ iteration ${h.n} · story ${field(h.story_id ?? "-", width)}. ${field(h.story_title ?? "", width)} · attempt ${h.attempt ?? "-"}`].join("\n"),
        );
    },
    event(e) {
      seen.end ||= e.type === "IterationEnd" || (e.type === "AuditEnd" && e.final);
      seen.agent ||= e.type === "StoryEvent" || e.type === "AuditEvent";
      const lines = renderEvent(e, { color }); // renderEvent makes the event's text inert
      if (lines.length) out(lines.join("\n"));
    },
    end(head) {
      const r = inertDeep(head.record);
      const lines: string[] = [];
      if (r && !seen.end)
        lines.push(
          `  ◆ iteration ${head.n}: outcome ${r.outcome} · ${formatDuration(between(r.started, r.ended))}`,
          ...(r.reason ? [`    reason: ${field(r.reason, width)}`] : []),
        );
      if (!seen.agent) lines.push("  (no agent events in the event log)");
      if (!r) lines.push("  (still running)");
      if (r?.log_file) lines.push(`  raw agent output: ${relative(worktree, r.log_file) || r.log_file}`);
      if (lines.length) out(lines.join("\n"));
    },
  };
}

/**
 * `log --json`, written as it is read: the same document `JSON.stringify(…, null, 2)` would make of
 * `{ run, iterations: [{ …, events: […] }] }`, without holding the events. `out` gets whole lines.
 */
export function iterationJsonPrinter(out: (text: string) => void, run: object): RunLogSink & { finish(): void } {
  const json = (v: unknown, depth: number) => JSON.stringify(v, null, 2).replace(/\n/g, `\n${" ".repeat(depth)}`);
  let held: string | null = null; // the last event written, waiting to learn whether a comma follows
  // A list's opening line waits for its first element: an empty list is `[]` on the line that opened it.
  let opening: string | null = `{\n  "run": ${json(run, 2)},\n  "iterations": `;
  const open = () => {
    if (opening !== null) out(`${opening}[`);
    opening = null;
  };
  let iterations = 0;
  return {
    begin(head) {
      const r = head.record;
      const fields = {
        n: head.n,
        kind: head.kind,
        story_id: head.story_id,
        story_title: head.story_title,
        attempt: head.attempt,
        outcome: r?.outcome ?? null,
        reason: r?.reason ?? null,
        started: r?.started ?? null,
        ended: r?.ended ?? null,
        log_file: r?.log_file ?? null,
      };
      open();
      if (iterations++) out("    },");
      opening = `    {\n${Object.entries(fields)
        .map(([k, v]) => `      ${JSON.stringify(k)}: ${json(v, 6)},`)
        .join("\n")}\n      "events": `;
    },
    event(e) {
      open();
      if (held !== null) out(`${held},`);
      held = `        ${json(e, 8)}`;
    },
    end() {
      if (opening !== null) out(`${opening}[]`);
      else out(`${held}\n      ]`);
      opening = held = null;
    },
    finish() {
      if (opening !== null) out(`${opening}[]\n}`);
      else out("    }\n  ]\n}");
    },
  };
}
