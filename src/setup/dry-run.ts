/** `start --dry-run`: the whole plan on one screen, before any token is spent. */
import { sandboxLabel } from "../record/sandbox-label.ts";
import { budgetLabel } from "../record/budget.ts";
import { relative } from "node:path";
import { auditorOf } from "../agents/auditor.ts";
import { adapterFor } from "../agents/registry.ts";
import { loopBranchName } from "../checkpoint/strategy.ts";
import type { AgentName, State } from "../state/schema.ts";
import { isComplete, type Story } from "../stories/story.ts";
import { finishedPlanNote, type Plan } from "./plan.ts";
import { firstPrompt } from "../engine/prompt.ts";
import { plural } from "../text/format.ts";
import { afterLabel, waves } from "../parallel/graph.ts";
import { issueLine } from "../github/label.ts";

/** `setBy`: where the options that are not defaults came from (setup/config.ts `setBy`); `trust`: whether the project file is trusted. */
export function describePlan(state: State, plan: Plan, setBy: string[] = [], trust: string | null = null): string {
  const rel = (f: string) => relative(state.worktree_path, f);
  const out: string[] = [`Dry run in ${state.worktree_name} — nothing was written and nothing started.`, ""];
  out.push(`Task:      ${state.task}`);
  if (plan.change) out.push(`Change:    ${plan.change}`);
  if (plan.github) out.push(`Issue:     ${issueLine(plan.github)}`);
  out.push(
    `Stories:   ${
      plan.source.kind === "manual"
        ? "one (the task)"
        : `${plan.stories.length} from ${rel(plan.tasksFile!)}${plan.write ? " (written when the loop starts)" : ""}`
    }`,
  );
  out.push(`Done when: ${state.done_criteria === "tasks" ? "every task is ticked in the tasks file" : "the agent reports <promise>COMPLETE</promise>"}`);
  if (plan.source.kind !== "manual") {
    out.push("");
    for (const s of plan.stories) {
      const after = afterLabel(s);
      const named = [after, s.agent ? `agent: ${s.agent}` : "", s.model ? `model: ${s.model}` : ""].filter(Boolean).join(" · ");
      out.push(`  ${isComplete(s) ? "✔" : "○"} ${s.id}. ${s.title}${named ? `  (${named})` : ""}`);
      for (const t of s.tasks) out.push(`      [${t.done ? "x" : " "}] ${t.text}`);
    }
  }
  if (plan.source.kind !== "manual") out.push(...graphLines(state.parallel, plan.stories));
  if (plan.source.kind === "openspec" && plan.source.change.scenarios.length) {
    out.push("", "Scenarios:");
    for (const sc of plan.source.change.scenarios) out.push(...sc.split("\n").map((l) => `  ${l}`));
  }
  out.push(
    "",
    `Agent:     ${commandLine(state.agent, state.model, state.agent_cmd, "prompt")}`,
    `Limits:    ${plural(state.max_iterations, "iteration")} · ${plural(state.max_retries, "attempt")} per story · ` +
      `stalled after ${plural(state.stall_threshold, "iteration")} without progress · ` +
      `${state.iteration_timeout_min} min per agent run · ${state.command_timeout_sec} s per command`,
    `Checkpoint: ${state.checkpoint === "branch" ? `branch ${loopBranchName(state.change ?? state.worktree_name)}` : "stash"} · ` +
      `at the end: ${state.on_complete}`,
  );
  if (state.notify) out.push(`Notify:    ${state.notify} (when the loop ends or waits for you)`);
  if (state.verify) out.push(`Verify:    ${state.verify} (sh -c, after each COMPLETE; limit ${state.verify_timeout_min} min)`);
  if (state.review)
    out.push(
      `Review:    ${commandLine(state.review, state.review_model, state.review_cmd, "review prompt")} ` +
        `(--review ${state.review}: after each COMPLETE that passes the box check${state.verify ? " and --verify" : ""}, ` +
        `shown the story and the attempt's diff; limit ${state.review_timeout_min} min)`,
    );
  if (state.audit) {
    const a = auditorOf(state);
    out.push(
      `Audit:     ${commandLine(a.name, a.model, a.cmd, "audit prompt")} ` +
        `(--audit: once every story is accepted, shown the goal, the whole diff and the stories; its gaps become stories; ` +
        `at most ${plural(state.audit_rounds, "round")})`,
    );
  }
  const sandbox = sandboxLabel(state);
  if (sandbox) out.push(`Sandbox:   ${sandbox} (the agent, --verify and --notify; writes only the worktree, its git dirs and the agent's own state)`);
  const budget = budgetLabel(state);
  if (budget) out.push(`Budget:    ${budget} (spent of each limit, over every run of this loop; stops at the limit)`);
  out.push(`Options:   ${setBy.length ? `the defaults, except from ${setBy.join(" · ")}` : "the defaults"}`);
  if (trust) out.push(`Trust:     ${trust}`);
  const prompt = firstPrompt({ ...plan, task: state.task }, state.worktree_path, { maxRetries: state.max_retries, verify: state.verify ?? null });
  if (prompt) {
    out.push("", "First prompt:", "─".repeat(60), prompt.trimEnd(), "─".repeat(60));
  } else out.push("", finishedPlanNote(plan, state.worktree_path, null) ?? "Every story is already complete: the loop would end done at once.");
  return out.join("\n");
}

/** What the agent's (or the reviewer's) run looks like: its argv, and where its prompt goes. */
function commandLine(name: AgentName, model: string | null, cmd: string | null, prompt: string): string {
  const adapter = adapterFor(name);
  const argv = adapter.argv({ prompt: `<${prompt}>`, model, agentCmd: cmd });
  return `${argv.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}${adapter.promptInArgv ? "" : ` < ${prompt}`}`;
}

/**
 * What runs when: with `--parallel` above 1, the waves of stories that would run at once; one after
 * another, the file's order (and a story placed before a prerequisite it names, which that order ignores).
 */
function graphLines(parallel: number, stories: Story[]): string[] {
  if (parallel > 1)
    return [
      "",
      `Parallel:  up to ${parallel} stories at once, each in its own lane; a story starts once the stories it names are integrated (docs/parallel.md)`,
      "Waves (what would run at once, if every story took as long):",
      ...waves(stories, parallel).map((w, i) => `  ${i + 1}. ${w.map((s) => `${s.id} ${s.title}`).join(" · ")}`),
    ];
  const place = new Map(stories.map((s, i) => [s.id, i]));
  const early = stories.flatMap((s, i) => (s.after ?? []).filter((p) => (place.get(p) ?? -1) > i).map((p) => `${s.id} comes before ${p}, which it names`));
  if (!stories.some((s) => s.after?.length)) return [];
  const order = "Order:     one story after another, in the file's order (prerequisites count with --parallel above 1)";
  return ["", early.length ? `${order}: ${early.join("; ")}` : order];
}
