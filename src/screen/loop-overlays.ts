/**
 * What the loop screen draws over itself (the key help, "stop this loop?", the end dialog, a diff, the
 * note input, the result view), and what a key does while one is open: an overlay
 * takes every key but Ctrl-C.
 */
import { formatTotalCost, plural } from "../text/format.ts";
import { inertLine } from "../term/inert.ts";
import { auditText, receiptRows } from "../term/receipt-view.ts";
import { auditOf, storiesOf } from "../record/receipt.ts";
import type { Action, Frame, Key, Line, Span } from "./frame.ts";
import type { LoopScreen } from "./loop-screen.ts";
import type { StoryReceipt } from "../state/schema.ts";
import { END_HINTS, type EndAnswer } from "../engine/view.ts";
import { wrapOverlay } from "./text.ts";
import { wrapLine } from "../text/width.ts";
import { FORCE_WINDOW_MS } from "../control/stop-presses.ts";

/** What `+` and `-` raise and lower the iteration limit by (the model acts on it, the limit warning offers it). */
export const LIMIT_STEP = 10;

const CHOICES = Object.entries(END_HINTS).map(([completion, hint]) => ({ completion: completion as EndAnswer, hint }));
/** The end dialog's choices: `pr` only when it is offered (a remote and `gh`). */
const choicesOf = (o: { offerPr: boolean }) => (o.offerPr ? CHOICES : CHOICES.slice(0, 2));

/** The key table `?` shows: every key of the loop screen. */
export function helpLines(mode: "run" | "monitor", ended = false, width = Number.POSITIVE_INFINITY): Line[] {
  const rows: [string, string][] = [
    ["↑ ↓  k j", "select a story (the running one is followed until you do)"],
    ["f", "follow the running story again"],
    ["Tab  Shift-Tab  1-5", "switch tab: Agent, Tasks, Files, Verify, Prompt"],
    ["[ ]  ← →", "Files, Verify, Prompt: the story's previous / next attempt"],
    ["g G", "the first / last story"],
    ["PgUp PgDn Home End", "scroll, as the wheel does (at the bottom the view follows new text)"],
    ["/", "find text in the Agent tab (/ Enter: the next)"],
    ["Enter", "Files tab: the attempt's diff"],
    ...(ended
      ? ([
          ["r", "the result: the run's summary and receipt"],
          ["q  Esc  Ctrl-C", "leave (the loop is over)"],
        ] as [string, string][])
      : ([
          ["p", "pause after this iteration / resume"],
          ["+  -", `iteration limit up / down by ${LIMIT_STEP}`],
          ["n", "a note for the next prompt"],
        ] as [string, string][])),
    ...(ended
      ? []
      : mode === "run"
        ? ([["q  Ctrl-C", `stop the loop (completed work is kept; q q q within ${FORCE_WINDOW_MS / 1000} s force-quits)`]] as [string, string][])
        : ([
            ["q  Ctrl-C", "leave; the loop goes on"],
            ["s", "stop the loop (asks first)"],
          ] as [string, string][])),
    ["?", "this help (any key closes it)"],
  ];
  return helpTable(rows, width);
}

/** The key column's width in the help (its longest keys and two spaces), where the screen has room for it. */
const KEY_COLUMN = 21;
/** The fewest columns a description keeps beside the keys; narrower, each description goes under its keys. */
const DESCRIPTION_MIN = 20;

/**
 * Keys and what they do in two columns, inside `width` columns: a description wraps at words under its own
 * column (never back under the keys, where it would read as another key). Too narrow for both: the keys on
 * a row, their description under them, indented.
 */
function helpTable(rows: [string, string][], width: number): Line[] {
  const keyWidth = width - KEY_COLUMN >= DESCRIPTION_MIN ? KEY_COLUMN : 0;
  const indent = keyWidth || 2;
  return rows.flatMap(([k, what]): Line[] => {
    const lines = wrapLine(what, Math.max(1, width - indent));
    const key: Span = { text: keyWidth ? k.padEnd(keyWidth) : k, tone: "accent", bold: true };
    const under = lines.map((l): Line => [{ text: " ".repeat(indent) }, { text: l }]);
    return keyWidth ? [[key, { text: lines[0] ?? "" }], ...under.slice(1)] : [[key], ...under];
  });
}

export function overlayKey(m: LoopScreen, k: Key): Action | null {
  const o = m.overlay!;
  const close = () => void (m.overlay = null);
  switch (o.kind) {
    case "help":
      close();
      return null;
    case "confirm-stop":
      close();
      return k === "y" || k === "Y" ? { kind: "stop-loop" } : null;
    case "ask": {
      const n = choicesOf(o).length;
      if (k === "down" || k === "j" || k === "tab") o.choice = (o.choice + 1) % n;
      if (k === "up" || k === "k") o.choice = (o.choice + n - 1) % n;
      // Esc and Ctrl-C keep, as the line prompt's cancel does: whoever wants out is not asking for a cleanup.
      const keeps = k === "escape" || k === "ctrl-c" || k === "K";
      const pr = o.offerPr && (k === "p" || k === "P");
      const answer: EndAnswer | null =
        k === "enter" ? choicesOf(o)[o.choice]!.completion : keeps ? "keep" : k === "c" || k === "C" ? "cleanup" : pr ? "pr" : null;
      if (!answer) return null;
      close(); // the completion step runs now; the result view follows
      return { kind: "answer", completion: answer };
    }
    case "text": {
      const rows = Math.max(1, m.rows - 6);
      const total = o.text.split("\n").length;
      const by: Record<string, number> = {
        up: -1,
        k: -1,
        down: 1,
        j: 1,
        pageup: -rows,
        pagedown: rows,
        wheelup: -3,
        wheeldown: 3,
        home: -Infinity,
        end: Infinity,
      };
      if (k in by) o.top = Math.max(0, Math.min(Math.max(0, total - rows), o.top + by[k]!));
      else if (k === "escape" || k === "q" || k === "enter") close();
      return null;
    }
    case "input":
      if (k === "escape") close();
      else if (k === "enter") {
        close();
        const text = o.text.trim();
        return text ? { kind: "note", text } : null;
      } else if (k === "backspace") o.text = o.text.slice(0, -1);
      else if (k === "space") o.text += " ";
      else if ([...k].length === 1 && k >= " ") o.text += k;
      return null;
    case "search":
      if (k === "escape") close();
      else if (k === "enter") {
        close();
        m.search(o.text.trim());
      } else if (k === "backspace") o.text = o.text.slice(0, -1);
      else if (k === "space") o.text += " ";
      else if ([...k].length === 1 && k >= " ") o.text += k;
      return null;
    case "result":
      close();
      return null;
  }
}

/**
 * The overlay as the frame carries it; its lines wrapped at words to what the screen's width leaves inside the box
 * (a diff's are not: they scroll as lines).
 */
export function overlayFrame(m: LoopScreen, rows: number): Frame["overlay"] {
  const o = overlayOf(m, rows);
  return m.overlay?.kind === "text" ? o : wrapOverlay(o, m.cols);
}

function overlayOf(m: LoopScreen, rows: number): Frame["overlay"] {
  const o = m.overlay;
  if (!o) return null;
  switch (o.kind) {
    case "help":
      return { title: "Keys", lines: helpLines(m.o.mode, m.end !== null, m.cols - 4) }; // inside its box (text.ts wrapOverlay)
    case "confirm-stop":
      return {
        title: "Stop this loop?",
        lines: [
          [
            { text: "The agent is signalled; completed work is kept. " },
            { text: "y", bold: true, tone: "accent" },
            { text: " stops it, any other key goes back." },
          ],
        ],
      };
    case "ask":
      return {
        title: `Loop ${o.status}: what should happen to the loop's branch?`,
        lines: [
          ...summary(m),
          [],
          ...choicesOf(o).map(
            (c, i): Line => [
              { text: `${i === o.choice ? "› " : "  "}${c.completion.padEnd(9)}`, bold: i === o.choice, tone: i === o.choice ? "accent" : "normal" },
              { text: c.hint, tone: "dim" },
            ],
          ),
          [],
          [{ text: "↑/↓ choose · Enter confirms · Esc or Ctrl-C keeps", tone: "dim" }],
        ],
      };
    case "text": {
      const lines = o.text.split("\n");
      const fit = Math.max(1, rows - 6);
      const shownLines = lines
        .slice(o.top, o.top + fit)
        .map((l): Line => [{ text: l, tone: l.startsWith("+") ? "good" : l.startsWith("-") ? "bad" : l.startsWith("@@") ? "accent" : "normal" }]);
      const where = lines.length > fit ? ` · lines ${o.top + 1}–${Math.min(lines.length, o.top + fit)} of ${lines.length}` : "";
      return { title: o.title, lines: [...shownLines, [{ text: `↑/↓ PgUp/PgDn scroll · Esc closes${where}`, tone: "dim" }]] };
    }
    case "search":
      return {
        title: "Find in the Agent tab",
        lines: [[{ text: `/ ${o.text}` }, { text: "█", tone: "accent" }], [{ text: "Enter finds (empty: the last again) · Esc cancels", tone: "dim" }]],
      };
    case "input":
      return {
        title: "A note for the next prompt",
        lines: [[{ text: `> ${o.text}` }, { text: "█", tone: "accent" }], [{ text: "Enter saves · Esc cancels", tone: "dim" }]],
      };
    case "result":
      return {
        title: "The loop is over",
        lines: [
          ...(m.end ? m.end.message.split("\n").map((t): Line => [{ text: t }]) : []),
          ...summary(m),
          [],
          [{ text: "any key closes this · q leaves the screen", tone: "dim" }],
        ],
      };
  }
}

/** Stories, iterations, tokens, cost, the receipt and branch: from the run's Complete event, else the state. */
function summary(m: LoopScreen): Line[] {
  const c = m.record.loop.complete;
  const st = m.st;
  const done = c?.stories_completed ?? st?.stories_completed ?? m.record.stories.filter((s) => s.status === "done").length;
  const total = c?.stories_total ?? st?.stories_total ?? m.record.stories.length;
  const iterations = c?.iterations ?? st?.iterations.length ?? m.record.loop.iteration;
  const tokens = c?.total_tokens ?? st?.total_tokens ?? m.record.loop.tokens;
  const cost = c?.total_cost_usd ?? st?.total_cost_usd ?? m.record.loop.cost;
  // After the completion step the state says where the work is (a cleanup deleted the loop's branch);
  // a Complete written before the question was answered does not know yet.
  const answered = st?.completion ?? c?.completion ?? null;
  const branch = answered === "cleanup" ? null : st?.completion ? st.checkpoint_branch : (c?.branch ?? st?.checkpoint_branch ?? null);
  const reason = st?.completion ? st.reason : (c?.reason ?? null);
  const lines: Line[] = [
    [
      {
        text:
          `${done}/${plural(total, "story", "stories")} complete · ${plural(iterations, "iteration")} · ${plural(tokens, "token")} · ` +
          `${formatTotalCost(cost)}`,
      },
    ],
  ];
  // The receipt (docs/receipt.md): each story's attempts, time, tokens and cost.
  const stories = c?.stories ?? (st ? storiesOf(st) : []);
  // A story out of attempts is marked as the list marks it (‼), not as one merely not done yet (·).
  const stuck = new Set(m.record.stories.filter((s) => s.status === "stuck").map((s) => s.id));
  const mark = (l: StoryReceipt) => (l.complete ? "✓" : stuck.has(l.id ?? "") ? "‼" : "·");
  for (const row of receiptRows(stories, m.cols - 4, mark)) lines.push([{ text: row }]); // cut to fit, not wrapped: a table
  const audit = c?.audit ?? (st ? auditOf(st) : null);
  if (audit) lines.push([{ text: `Audit: ${auditText(audit)}` }]);
  if (branch) lines.push([{ text: `branch ${inertLine(branch)}`, tone: "dim" }]);
  if (reason) lines.push([{ text: inertLine(reason).slice(0, 500), tone: "dim" }]);
  return lines;
}
