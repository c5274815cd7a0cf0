/**
 * What `--on-complete pr` and `wt-loop pr` write into a pull request (docs/github.md), as pure functions: the
 * title, and the body wt-loop writes from its own records — never the agent's words about itself. Per story:
 * accepted or not, attempts, time, tokens, cost, its commits and the files they changed, the `--verify` run and
 * the reviewer's verdict; then the totals, the forecast for what is left, and what was left unfinished and why.
 * The body sits between two hidden markers: a later run replaces only that part, so whatever the repository's
 * template or a person put around it stays.
 */
import { forecast, receiptOf } from "../record/receipt.ts";
import type { Iteration, State } from "../state/schema.ts";
import { formatCost, formatDuration, formatTokens, plural } from "../text/format.ts";
import { cell, receiptTable } from "./issue-text.ts";

export const BODY_START = "<!-- wt-loop:start (written by wt-loop from its records; replaced by its next run) -->";
export const BODY_END = "<!-- wt-loop:end -->";

/** A story of the plan (the tasks file as it is now), for what no attempt reached. */
export interface PlanStory {
  id: string;
  title: string;
  complete: boolean;
}

export interface PrFacts {
  state: State;
  /** The attempts of the earlier runs this run continues (a restart after `stuck`…), oldest first: their proof stays in the body. */
  earlier: Iteration[];
  plan: PlanStory[];
  /** The files each commit changed, by commit id. */
  files: Map<string, string[]>;
}

/** The title: the issue's, the change's, or the task's first line. */
export function prTitle(s: State): string {
  const gh = s.github;
  if (gh && gh.search === null && gh.issues[0]) return gh.issues[0].title;
  if (gh && gh.search !== null) return `Issues: ${gh.search}`;
  if (s.change) return s.change;
  const first =
    s.task
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? s.worktree_name;
  return first.length > 120 ? `${first.slice(0, 117)}…` : first;
}

const short = (sha: string) => sha.slice(0, 12);

/** The part of the body wt-loop owns, markers included. */
export function prSection(f: PrFacts): string {
  const s = f.state;
  const r = receiptOf(s);
  const all = [...f.earlier, ...s.iterations];
  const out: string[] = [BODY_START];
  out.push(...closingLines(s));
  // Every run of the loop counts, as in the receipt: this one's and the earlier runs' it continues.
  const spent = { usd: s.total_cost_usd + (s.spent_before?.cost_usd ?? 0), tokens: s.total_tokens + (s.spent_before?.tokens ?? 0) };
  const cost = spent.usd > 0 ? ` · ${formatCost(spent.usd)}` : "";
  out.push(
    `**wt-loop** ended **${s.status}**: ${s.stories_completed}/${s.stories_total} stories, ` +
      `${plural(all.length, "iteration")}, ${formatTokens(spent.tokens)} tokens${cost}.`,
  );
  const reason = endingReason(s);
  if (reason) out.push("", `> ${cell(reason)}`);
  out.push("", ...receiptTable(r.stories));
  for (const l of r.stories) out.push("", ...storyDetail(s, all, l.id, l.title, l.complete, f.files));
  const left = f.plan.filter((p) => !p.complete);
  if (left.length) {
    out.push("", "#### Left unfinished");
    for (const p of left) {
      const last = [...all].reverse().find((i) => i.story_id === p.id && i.kind !== "audit");
      const why = last
        ? `${last.outcome} after ${plural(r.stories.find((x) => x.id === p.id)?.attempts ?? 0, "attempt")}${last.reason ? `: ${cell(last.reason)}` : ""}`
        : "not attempted";
      out.push(`- ${cell(`${p.id}. ${p.title}`)} — ${why}`);
    }
    const fc = forecast({ stories_total: s.stories_total, stories_completed: s.stories_completed, parallel: s.parallel }, r.stories);
    if (fc.time_ms || fc.cost_usd) {
      const parts = [
        fc.time_ms ? `${formatDuration(fc.time_ms.low)}–${formatDuration(fc.time_ms.high)}` : null,
        fc.cost_usd ? `${formatCost(fc.cost_usd.low)}–${formatCost(fc.cost_usd.high)}` : null,
      ].filter(Boolean);
      out.push(
        "",
        `Forecast for the ${plural(fc.remaining_stories ?? left.length, "story", "stories")} left, ` +
          `from the ${plural(fc.finished_stories, "story", "stories")} finished: ${parts.join(", ")}.`,
      );
    }
  }
  out.push("", `<sub>Written by wt-loop from its own records (branch \`${cell(s.checkpoint_branch ?? "none")}\`), not by the agent.</sub>`, BODY_END);
  return out.join("\n");
}

/** Why the loop ended, without what its completion did after (kept the branch, this very pull request). */
function endingReason(s: State): string | null {
  const done = s.completion_message;
  if (!s.reason || !done || !s.reason.endsWith(done)) return s.reason;
  return s.reason.slice(0, -done.length).replace(/[.\s]+$/, "") || null;
}

/** `Closes #N` once every story is done; `Part of #N` while some remain (a merge must not close unfinished work). */
function closingLines(s: State): string[] {
  const gh = s.github;
  if (!gh) return [];
  const accepted = new Set(
    receiptOf(s)
      .stories.filter((l) => l.complete)
      .map((l) => l.id),
  );
  const lines = gh.issues.map((i) => {
    const done = gh.search === null ? s.status === "done" : accepted.has(String(i.number));
    return `${done ? "Closes" : "Part of"} #${i.number}`;
  });
  return [...lines, ""];
}

function storyDetail(s: State, all: Iteration[], id: string | null, title: string | null, complete: boolean, files: Map<string, string[]>): string[] {
  const its = all.filter((i) => i.kind !== "audit" && i.story_id === id);
  const out = [`#### ${cell(id === null ? "The task" : `${id}. ${title ?? ""}`)} — ${complete ? "accepted" : "not accepted"}`, ""];
  const commits = its.flatMap((i) => (i.outcome === "complete" ? i.commits : []));
  out.push(`- commits: ${commits.length ? commits.map((c) => `\`${short(c)}\``).join(", ") : "none"}`);
  const changed = [...new Set(commits.flatMap((c) => files.get(c) ?? []))].sort();
  if (commits.length) out.push(`- files changed: ${changed.length ? changed.map((p) => `\`${cell(p)}\``).join(", ") : "none"}`);
  out.push(`- attempts: ${its.map(attemptLine).join("; ") || "none"}`);
  if (s.verify) out.push(`- verify \`${cell(s.verify)}\`: ${verifyLine(its)}`);
  const reviewed = its.filter((i) => i.review);
  if (reviewed.length) {
    const last = reviewed.at(-1)!.review!;
    out.push(`- review (${last.reviewer}): ${last.verdict}${last.reason ? ` — ${cell(last.reason)}` : ""}`);
  }
  return out;
}

const attemptLine = (i: Iteration) => `#${i.attempt} ${i.outcome}${i.outcome !== "complete" && i.reason ? ` (${cell(i.reason).slice(0, 160)})` : ""}`;

function verifyLine(its: Iteration[]): string {
  const runs = its.filter((i) => i.verify);
  if (!runs.length) return "did not run";
  return runs
    .map((i) => {
      const v = i.verify!;
      const result = v.timed_out ? "timed out" : v.exit_code === 0 ? "passed" : `failed (exit ${v.exit_code ?? "none"})`;
      return `attempt ${i.attempt} ${result} in ${formatDuration(v.duration_ms)}`;
    })
    .join("; ");
}

/** The body: on creation the repository's template (if any) with ours below it; on update, only our part replaced. */
export function prBody(previous: string | null, template: string | null, section: string): string {
  if (previous !== null) {
    const a = previous.indexOf(BODY_START);
    const b = previous.indexOf(BODY_END, a);
    if (a >= 0 && b > a) return previous.slice(0, a) + section + previous.slice(b + BODY_END.length);
    return `${previous.trimEnd()}\n\n${section}`;
  }
  return template?.trim() ? `${template.trimEnd()}\n\n${section}` : section;
}
