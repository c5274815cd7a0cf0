/**
 * Deciding what a loop will do, before anything is written (docs/how-it-works.md): which stories, from where,
 * with which done criteria and task text. `start`, `run` and `--dry-run` all go through here.
 */
import { relative, sep } from "node:path";
import { existsSync, realpathSync } from "node:fs";
import { exec } from "../proc/spawn.ts";
import { UserError } from "../errors.ts";
import { changeContext, isOpenSpecProject, pickChange, type OpenSpecOptions } from "../stories/openspec.ts";
import { loadStories, type StorySource } from "../stories/source.ts";
import { headingOf, isComplete, parseStories, type Story } from "../stories/story.ts";
import { SCHEMA_VERSION, ZERO_TOKENS, type State } from "../state/schema.ts";
import { findTasksFile } from "../stories/tasks-file.ts";
import type { LoopOptions } from "./options.ts";
import { toState } from "./option-table.ts";
import { graphRefusal } from "../parallel/graph.ts";
import { otherAgents, storyAgentsProblem } from "../agents/story-agent.ts";
import { refuseUnmeasurable } from "../record/budget.ts";
import { issueWork } from "../github/issue-source.ts";
import type { GitHubLink } from "../state/schema.ts";
import { nothingRunYet } from "../state/nothing-run.ts";

export const NO_TASKS_WARNING = "No tasks.md found, using manual done criteria";

export interface Plan {
  source: StorySource;
  doneCriteria: "tasks" | "manual";
  task: string;
  change: string | null;
  tasksFile: string | null;
  stories: Story[];
  /** The tasks file to write once every check has passed (stories from an issue); null: nothing to write. */
  write: { path: string; text: string } | null;
  /** The GitHub issues the stories come from. */
  github: GitHubLink | null;
}

export async function makePlan(worktree: string, opts: LoopOptions, os: OpenSpecOptions): Promise<Plan> {
  const plan = opts.issue || opts.issues ? await issuePlan(worktree, opts, os) : await workPlan(worktree, opts, os);
  // The audit's gaps become stories of the tasks file: without one it would have nowhere to put them.
  if (opts.audit && plan.doneCriteria === "manual")
    throw new UserError("--audit needs a tasks file (--done tasks): the gaps it finds become stories appended to it. Add a tasks.md, or drop --audit.");
  return plan;
}

async function workPlan(worktree: string, opts: LoopOptions, os: OpenSpecOptions): Promise<Plan> {
  const found = await findWork(worktree, opts, os);
  const rel = (f: string) => relative(worktree, f);
  if (!found) {
    if (opts.done === "tasks")
      throw new UserError("--done tasks needs a tasks.md, and none was found (worktree root, or depth ≤ 3). Add one, or use --done manual with a task.");
    if (opts.done === undefined) os.warn(NO_TASKS_WARNING);
    if (!opts.task?.trim()) throw new UserError('Nothing to do: no tasks.md was found and no task was given. Run `wt-loop start "describe the task"`.');
    const source: StorySource = { kind: "manual", task: opts.task.trim() };
    return { source, doneCriteria: "manual", task: source.task, change: null, tasksFile: null, stories: await loadStories(source), write: null, github: null };
  }
  const change = found.kind === "openspec" ? found.change.name : null;
  const task =
    opts.task?.trim() || (change ? `Implement the OpenSpec change '${change}' (${rel(found.tasksFile)}).` : `Complete the tasks in ${rel(found.tasksFile)}.`);
  if (opts.done === "manual") {
    const source: StorySource = { kind: "manual", task };
    return { source, doneCriteria: "manual", task, change, tasksFile: found.tasksFile, stories: await loadStories(source), write: null, github: null };
  }
  await refuseUnprotectedTasksFile(worktree, found.tasksFile, os);
  const stories = await loadStories(found);
  if (stories.length === 0)
    throw new UserError(`${rel(found.tasksFile)} has no checkbox tasks (lines like \`- [ ] do X\`). Add some, or use --done manual with a task.`);
  // Refused with or without --parallel: one after another the file's order stands, but a circle or a typo is a mistake.
  const unmet = graphRefusal(stories, rel(found.tasksFile));
  if (unmet) throw new UserError(unmet);
  refuseStoryAgents(stories, rel(found.tasksFile), opts, os);
  return { source: found, doneCriteria: "tasks", task, change, tasksFile: found.tasksFile, stories, write: null, github: null };
}

/** Stories from GitHub issues (github/issue-source.ts): the tasks file is planned here and written by `writeStarting`. */
async function issuePlan(worktree: string, opts: LoopOptions, os: OpenSpecOptions): Promise<Plan> {
  if (opts.change) throw new UserError(`--change and --${opts.issue ? "issue" : "issues"} both name the work: give one of them.`);
  const work = await issueWork(worktree, opts, { cwd: worktree, timeoutMs: os.timeoutMs, signal: os.signal, env: os.env }, os.warn);
  const task = opts.task?.trim() || work.task;
  if (opts.done === "manual") {
    const source: StorySource = { kind: "manual", task };
    return { source, doneCriteria: "manual", task, change: null, tasksFile: null, stories: await loadStories(source), write: null, github: work.github };
  }
  const rel = relative(worktree, work.tasksFile);
  if (work.markdown === null) await refuseUnprotectedTasksFile(worktree, work.tasksFile, os);
  else await refuseIgnored(worktree, rel, os);
  const source: StorySource = { kind: "issue", tasksFile: work.tasksFile };
  const stories = work.markdown === null ? await loadStories(source) : parseStories(work.markdown);
  if (stories.length === 0) throw new UserError(`${rel} has no checkbox tasks (lines like \`- [ ] do X\`). Delete it to read the issue again.`);
  const unmet = graphRefusal(stories, rel);
  if (unmet) throw new UserError(unmet);
  refuseStoryAgents(stories, rel, opts, os);
  const write = work.markdown === null ? null : { path: work.tasksFile, text: work.markdown };
  return { source, doneCriteria: "tasks", task, change: null, tasksFile: work.tasksFile, stories, write, github: work.github };
}

/**
 * Stories that name their agent (agents/story-agent.ts): each one known and installed, and measurable by the
 * budget a loop has — a story of an agent that reports no cost would spend past `--max-cost` unseen.
 */
function refuseStoryAgents(stories: Story[], file: string, opts: LoopOptions, os: OpenSpecOptions): void {
  const loop = { agent: opts.agent, agent_cmd: opts.agentCmd ?? null };
  const problem = storyAgentsProblem(loop, stories, (os.env ?? process.env).PATH, isComplete);
  if (problem) throw new UserError(`${file}: ${problem} Nothing was started.`);
  const left = stories.filter((s) => !isComplete(s));
  for (const name of otherAgents(loop, left))
    try {
      refuseUnmeasurable(name, opts);
    } catch (err) {
      const story = left.find((s) => s.agent?.toLowerCase() === name)!;
      throw new UserError(`${file}: \`${headingOf(story)}\` runs its attempts with ${name}. ${(err as Error).message}`);
    }
}

async function findWork(worktree: string, opts: LoopOptions, os: OpenSpecOptions): Promise<Exclude<StorySource, { kind: "manual" }> | null> {
  if (opts.change || isOpenSpecProject(worktree)) {
    if (opts.change && !isOpenSpecProject(worktree))
      throw new UserError(`--change ${opts.change}: this worktree has no openspec/changes/ folder. Run without --change, or from the right worktree.`);
    const name = await pickChange(opts.change, os);
    if (name) {
      const change = await changeContext(name, os);
      if (existsSync(change.tasksFile)) return { kind: "openspec", tasksFile: change.tasksFile, change };
      if (opts.change && opts.done !== "manual")
        throw new UserError(`The OpenSpec change '${name}' has no tasks.md yet. Write its tasks first, or use --done manual with a task.`);
    }
  }
  const tasksFile = await findTasksFile(worktree);
  return tasksFile ? { kind: "tasks-file", tasksFile } : null;
}

/**
 * With `tasks` criteria the boxes in the tasks file are the verdict, and a revert must be able to
 * put them back. A file outside the worktree (through a symlink) or one git ignores is outside every
 * checkpoint: the ticks of a reverted attempt would stay, and the loop would end `done` untruly.
 */
async function refuseUnprotectedTasksFile(worktree: string, tasksFile: string, os: OpenSpecOptions): Promise<void> {
  const rel = relative(worktree, tasksFile);
  const real = realpathSync(tasksFile);
  const root = realpathSync(worktree);
  if (!real.startsWith(root + sep))
    throw new UserError(
      `${rel} lies outside this worktree (it resolves to ${real}), so a revert could not restore its boxes. ` +
        "Keep the tasks file inside the worktree, or use --done manual with a task.",
    );
  await refuseIgnored(root, relative(root, real), os, rel);
}

/** A tasks file git ignores is outside every checkpoint (above); also asked of one not written yet. */
async function refuseIgnored(root: string, path: string, os: OpenSpecOptions, rel = path): Promise<void> {
  const ignored = await exec(["git", "check-ignore", "-q", "--", path], { cwd: root, timeoutMs: os.timeoutMs, allowFailure: true });
  if (ignored.code === 0)
    throw new UserError(
      `${rel} is ignored by git, so a revert could not restore its boxes (a failed attempt's ticks would stay). ` +
        `Stop ignoring it (or track it with \`git add -f ${rel}\`), or use --done manual with a task.`,
    );
}

/** Rebuilds the source a `start` decided, from the state it wrote. */
export async function sourceFromState(
  s: { source: StorySource["kind"]; tasks_file: string | null; change: string | null; task: string },
  os: OpenSpecOptions,
): Promise<StorySource> {
  switch (s.source) {
    case "manual":
      return { kind: "manual", task: s.task };
    case "tasks-file":
    case "issue":
      return { kind: s.source, tasksFile: s.tasks_file! };
    case "openspec": {
      const change = await changeContext(s.change!, os);
      return { kind: "openspec", tasksFile: s.tasks_file ?? change.tasksFile, change };
    }
  }
}

/**
 * Why a new loop has nothing to do: a tasks plan whose every story is complete, none of them waiting
 * for the check an interrupted attempt never got (`unchecked`). Such a start writes nothing — no
 * checkpoint branch holding the user's uncommitted work, no state — rather than a loop that ends
 * `done` at once on a branch the user did not ask for. Null when there is work.
 */
export function finishedPlanNote(plan: Plan, worktree: string, unchecked: string | null): string | null {
  if (plan.doneCriteria !== "tasks" || unchecked || !plan.tasksFile || !plan.stories.length || !plan.stories.every(isComplete)) return null;
  const of = `${relative(worktree, plan.tasksFile)}${plan.change ? ` (change ${plan.change})` : ""}`;
  const n = plan.stories.length;
  return `Nothing to do: every story of ${of} is complete (${n}/${n}). Nothing was started or written; untick a story's boxes to have it done again.`;
}

/**
 * Said before a loop starts that cannot finish: each story left takes at least one iteration, so with more
 * of them than `--max` allows the loop ends `stuck` at the limit, hours later, with work left.
 */
export function maxTooSmallNote(plan: Plan, max: number): string | null {
  if (plan.doneCriteria !== "tasks") return null;
  const left = plan.stories.filter((s) => !isComplete(s)).length;
  if (left <= max) return null;
  return (
    `${left} stories are left and --max allows ${max} iterations (at least one each): the loop cannot finish. ` +
    `Start it with --max ${left} or more (a retry takes an iteration too), or raise the limit while it runs with \`wt-loop max +N\`.`
  );
}

/** The state a new loop starts from (status `starting`, nothing run yet). */
export function initialState(wt: { path: string; name: string }, opts: LoopOptions, plan: Plan): State {
  const now = new Date().toISOString();
  // The option fields come from the options table; the plan decides the task, change and criteria.
  return {
    ...toState(opts),
    schema_version: SCHEMA_VERSION,
    worktree_name: wt.name,
    worktree_path: wt.path,
    status: "starting",
    current_iteration: 0,
    started_at: now,
    updated_at: now,
    ended_at: null,
    task: plan.task,
    iterations: [],
    done_criteria: plan.doneCriteria,
    total_tokens: 0,
    tokens: { ...ZERO_TOKENS },
    total_cost_usd: 0,
    source: plan.source.kind,
    change: plan.change,
    tasks_file: plan.tasksFile,
    github: plan.github,
    stories_total: plan.stories.length,
    stories_completed: plan.doneCriteria === "tasks" ? plan.stories.filter(isComplete).length : 0,
    planned_stories: plan.doneCriteria === "tasks" ? plan.stories.map(({ id, title }) => ({ id, title })) : [],
    ...nothingRunYet(),
    runner_pid: null,
    reason: null,
    spent_before: { cost_usd: 0, tokens: 0 },
    earlier_stories: [],
    pull_request: null,
    stop_reason: null,
  } as State; // the option fields are typed by the table; test/setup/option-table.test.ts parses the whole state
}
