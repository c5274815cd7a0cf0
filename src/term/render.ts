/**
 * The one renderer of loop events, shared by `run` and `monitor` so both show the same thing.
 * Colour only when asked for (a TTY without NO_COLOR); the text is the same either way.
 */
import { assertNever } from "../errors.ts";
import type { CompleteEvent, LoopEvent } from "../record/events.ts";
import { auditSaid, reviewSaid, unavailableSaid, verifySaid } from "../record/said.ts";
import { paint } from "./color.ts";
import { inertDeep } from "./inert.ts";
import { clockTime, formatCost, formatDuration, formatTokens, formatTotalCost, plural, truncate } from "../text/format.ts";
import { sumTokens } from "../state/schema.ts";
import { cells, padCells, wrapLine } from "../text/width.ts";
import { auditText, receiptRows } from "./receipt-view.ts";

export interface RenderOptions {
  color: boolean;
  /** Only this story's messages (monitor --story). */
  story?: string;
  /** Columns the final box may use (default: the terminal's, 60–200). */
  width?: number;
}

/** The width boxes are drawn to: the terminal's, kept within 60–200 columns (80 when not a terminal). */
export function boxWidth(out: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return Math.max(60, Math.min(200, out.isTTY && out.columns ? out.columns : 80));
}

/** Messages longer than this show their first part only (the event log keeps all of it). */
export const SHOWN_MESSAGE = 64 * 1024;

export { useColor } from "./color.ts";

/** A title or reason from the event log, which can be as big as the state it came from: its start, and where the rest is. */
const bounded = (text: string, width = 500, firstLine = true) => truncate(text, width, { rest: "`wt-loop log --json` has all", firstLine });

export function renderEvent(event: LoopEvent, o: RenderOptions): string[] {
  // Everything in an event may have come from the agent or the tasks file: inert before it is coloured.
  const e = inertDeep(event);
  const bold = paint(o.color, "1");
  const dim = paint(o.color, "2");
  const red = paint(o.color, "31");
  const green = paint(o.color, "32");
  const cyan = paint(o.color, "36");
  if (o.story && "story_id" in e && e.story_id !== o.story) return [];
  switch (e.type) {
    case "LoopStarted":
      return []; // the line stream shows each story as the loop reaches it
    case "StoryProgress":
      return [
        "",
        bold(`━━ ${e.worktree} · story ${e.index}/${e.total}: ${e.story_id}. ${bounded(e.title)}`),
        dim(`   iteration ${e.iteration}/${e.max_iterations} · attempt ${e.attempt}/${e.max_retries} · ${e.completed}/${e.total} stories complete`),
      ];
    case "StoryEvent": {
      const ev = e.event;
      switch (ev.type) {
        case "Message": {
          // A terminal cannot show megabytes usefully, and copying them to show them is what made
          // memory grow: show the head of a huge message and say where the whole of it is.
          const head = ev.text.length > SHOWN_MESSAGE ? ev.text.slice(0, SHOWN_MESSAGE) : ev.text;
          const rest = (ev.spilled?.chars ?? ev.text.length) - head.length; // a spilled text holds only its head
          const lines = [`  ${head.replaceAll("\n", "\n  ")}`];
          if (rest > 0) lines.push(dim(`  … ${formatTokens(rest)} more characters (the whole message is in .claude/loop-events.jsonl and .claude/logs/)`));
          return lines;
        }
        case "ToolUse":
          return [cyan(`  ▸ ${ev.name}${ev.summary ? ` ${ev.summary}` : ""}`)];
        case "Done":
          return ev.is_error && ev.errors.length ? [red(`  agent error: ${ev.errors.join("; ")}`)] : [];
        case "ApiRetry": {
          const status = ev.status !== null ? `${ev.status} ` : "";
          const count = ev.attempt !== null ? ` (${ev.attempt}${ev.max_retries !== null ? `/${ev.max_retries}` : ""})` : "";
          const delay = ev.delay_ms !== null ? ` in ${formatDuration(ev.delay_ms)}` : "";
          return [dim(`  ↻ API ${status}${ev.error}: the agent retries${count}${delay}`)];
        }
        case "Unavailable":
          return [red(`  ${unavailableSaid(ev)}`)];
        default:
          return assertNever(ev);
      }
    }
    case "IterationEnd": {
      const ok = e.outcome === "complete";
      const parts = [
        `outcome ${e.outcome}`,
        e.turns !== null ? plural(e.turns, "turn") : null,
        plural(sumTokens(e.tokens), "token"),
        e.cost_usd !== null ? formatCost(e.cost_usd) : null,
        formatDuration(e.duration_ms),
        e.commits.length ? plural(e.commits.length, "commit") : null,
      ].filter(Boolean);
      const lines = [(ok ? green : e.outcome === "stopped" ? dim : red)(`  ◆ iteration ${e.iteration}: ${parts.join(" · ")}`)];
      if (e.reason) lines.push(dim(`    reason: ${bounded(e.reason)}`));
      return lines;
    }
    case "VerifyStart":
      return [cyan(`  ▸ verify: ${e.command}`)];
    case "VerifyEnd": {
      const line = `  ◆ verify ${verifySaid(e)} · ${formatDuration(e.duration_ms)}${e.passed ? "" : ` · output: ${e.log_file}`}`;
      return [(e.passed ? green : e.exit_code === null && !e.timed_out ? dim : red)(line)];
    }
    case "ReviewStart":
      return [cyan(`  ▸ review by ${e.reviewer}${e.run > 1 ? ` (run ${e.run}: the first gave no verdict)` : ""}`)];
    case "ReviewEvent":
      // The reviewer's own doings, drawn as the agent's are, marked so they are not taken for the agent's.
      return renderEvent({ type: "StoryEvent", story_id: e.story_id, event: e.event }, o).map((l) => `  ${dim("review")}${l}`);
    case "ReviewEnd": {
      const lines = [
        (e.verdict === "approve" ? green : e.verdict === "stopped" ? dim : red)(`  ◆ review ${reviewSaid(e.verdict)} · ${formatDuration(e.duration_ms)}`),
      ];
      if (e.reason) lines.push(dim(`    ${e.verdict === "changes" ? "changes" : "reason"}: ${bounded(e.reason)}`));
      if (e.put_back.length) lines.push(red(`    the reviewer changed the worktree; put back: ${bounded(e.put_back.join(", "))}`));
      return lines;
    }
    case "AuditStart":
      return e.run > 1
        ? [cyan(`  ▸ audit by ${e.auditor} (run ${e.run}: the first gave no verdict)`)]
        : ["", bold(`━━ audit · round ${e.round} · iteration ${e.iteration}: every story is complete; ${e.auditor} checks the change against its goal`)];
    case "AuditEvent":
      // The auditor's doings, drawn as the agent's are, marked so they are not taken for the agent's.
      return renderEvent({ type: "StoryEvent", story_id: "", event: e.event }, { ...o, story: undefined }).map((l) => `  ${dim("audit")}${l}`);
    case "AuditEnd": {
      const said = auditSaid(e);
      const lines = [(e.verdict === "pass" ? green : e.verdict === "stopped" ? dim : red)(`  ◆ audit ${said} · ${formatDuration(e.duration_ms)}`)];
      for (const g of e.gaps) lines.push(dim(`    gap: ${bounded(g)}`));
      if (e.reason) lines.push(dim(`    reason: ${bounded(e.reason)}`));
      if (e.put_back.length) lines.push(red(`    the auditor changed the worktree; put back: ${bounded(e.put_back.join(", "))}`));
      return lines;
    }
    case "Error":
      return [red(`✖ ${e.message}`)];
    case "Waiting": {
      const until = Date.parse(e.until);
      return [
        red(`⏸ The agent is unavailable: ${bounded(e.reason)}`),
        dim(
          `   Waiting ${formatDuration(until - Date.parse(e.since))}, until ${clockTime(until, Date.parse(e.since))}; ` +
            `then story ${e.story_id}, attempt ${e.attempt} again (not counted as an attempt). \`wt-loop stop\` ends the wait.`,
        ),
      ];
    }
    case "Watching":
      return [
        cyan(
          `⏳ Watching pull request #${e.pull_request}: ${
            e.checks.length ? `its checks ${bounded(e.checks.join(", "))} are running` : "waiting for GitHub to show the pushed commit and its checks"
          }.`,
        ),
        dim(
          `   Waiting at most until ${clockTime(Date.parse(e.until), Date.parse(e.since))} (--max-wait); ` +
            `failing checks and requested changes become stories. \`wt-loop stop\` ends the watch.`,
        ),
      ];
    case "Feedback":
      return [cyan(`↩ ${bounded(e.note)}`)];
    case "Paused":
      return [cyan(`⏸ Paused after iteration ${e.iteration}: \`wt-loop resume\` goes on, \`wt-loop stop\` ends the loop.`)];
    case "Resumed":
      return [cyan(`▶ Resumed after ${formatDuration(e.paused_ms)} paused.`)];
    case "MaxIterationsChanged":
      return [cyan(`◆ Iteration limit ${e.from} → ${e.to}.`)];
    case "NoteAdded":
      return [cyan(`✎ Note for the next iteration: ${bounded(e.text)}`)];
    case "Lane":
      return [laneLine(e, { dim, red, green })];
    case "NotesUsed":
      return [
        dim(
          `   iteration ${e.iteration}'s prompt carries ${e.notes.length === 1 ? "your note" : plural(e.notes.length, "note")}: ` +
            `${bounded(e.notes.join(" · "))}`,
        ),
      ];
    case "Complete": {
      const tint = e.status === "done" ? green : e.status === "stopped" ? cyan : red;
      const box = drawBox(
        `Loop ${e.status}${e.stop_reason === "budget" ? " (budget)" : ""}`,
        [
          bounded(e.reason, 2000, false),
          "",
          `${e.stories_completed}/${plural(e.stories_total, "story", "stories")} complete · ${plural(e.iterations, "iteration")} · ` +
            `${plural(e.total_tokens, "token")} · ${formatTotalCost(e.total_cost_usd)} · ${formatDuration(e.duration_ms)}`,
          ...(e.sandbox ? [`Sandbox: ${e.sandbox}`] : []),
          // The receipt: what each story took (docs/receipt.md). Rows are not wrapped at spaces: they are cut.
          ...(e.stories?.length ? ["", ...receiptRows(e.stories, (o.width ?? boxWidth()) - 4)] : []),
          ...(e.audit ? [`Audit: ${auditText(e.audit)}`] : []),
          "",
          ...nextSteps(e),
        ],
        (o.width ?? boxWidth()) - 4,
      );
      return ["", ...box.map((l, i) => (i === 0 || i === box.length - 1 ? tint(l) : l))];
    }
    default:
      return assertNever(e);
  }
}

/** What the user can do next, by how the loop ended and where its work now is. */
function nextSteps(e: CompleteEvent): string[] {
  const where =
    e.completion === "cleanup"
      ? `The work is uncommitted on ${e.branch ?? "your original commit"}: review it with \`git status\` (new files too) and \`git diff\`.`
      : e.branch
        ? `The work is on ${e.branch}: review it with \`git log --oneline ${e.branch}\`.`
        : "The work is in the working tree: review it with `git status` (checkpoint stashes: `git stash list`).";
  switch (e.status) {
    case "done":
      return [where];
    case "stuck":
    case "stalled":
      return [where, "See what the agent did: `wt-loop log` (story by story) and `wt-loop history`. Fix the cause, then `wt-loop start` continues."];
    case "stopped":
      return [
        where,
        e.stop_reason === "budget" ? "`wt-loop start` with a higher --max-cost or --max-tokens continues from here." : "`wt-loop start` continues from here.",
      ];
    default:
      return assertNever(e.status);
  }
}

/**
 * A rounded box around `lines`; lines wrap at `max` columns of text (the box is 4 wider). Measured in the terminal's
 * columns (text/width.ts), as the receipt's rows inside it are cut: a wide character takes two.
 */
export function drawBox(title: string, lines: string[], max = 96): string[] {
  const wrapped = lines.flatMap((l) => wrapLine(l, max));
  const width = Math.max(cells(title) + 2, ...wrapped.map(cells));
  const top = `╭─ ${title} ${"─".repeat(Math.max(0, width - cells(title) - 1))}╮`;
  return [top, ...wrapped.map((l) => `│ ${padCells(l, width)} │`), `╰${"─".repeat(width + 2)}╯`];
}

/** `--parallel`: one line per step of a lane; a failed integration says why the story goes again. */
function laneLine(e: Extract<LoopEvent, { type: "Lane" }>, { dim, red, green }: Record<"dim" | "red" | "green", (s: string) => string>): string {
  const who = `story ${e.story_id} (iteration ${e.iteration}, attempt ${e.attempt})`;
  switch (e.step) {
    case "opened":
      return dim(`   ⑂ lane opened for ${who}: ${e.worktree}`);
    case "queued":
      return dim(`   ⑂ ${who} accepted in its lane, waiting to be integrated`);
    case "integrating":
      return dim(`   ⑂ integrating ${who}`);
    case "integrated":
      return green(`⑂ ${who} integrated: ${plural(e.commits.length, "commit")} on the loop branch`);
    case "conflict":
      return red(`⑂ ${who} conflicts with the loop branch (${bounded(e.paths.join(", "))}); undone, it goes again on the new head`);
    case "verify_failed":
      return red(`⑂ ${who} integrated but --verify failed; undone, it goes again: ${bounded(e.reason ?? "")}`);
    case "closed":
      return dim(`   ⑂ lane of ${who} removed`);
    default:
      return assertNever(e.step);
  }
}
