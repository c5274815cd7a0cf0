/**
 * What the selection screen and the preview show, read from the worktree (the I/O beside the pure
 * models select-model.ts and preview-model.ts): its OpenSpec changes with unfinished tasks, a plain
 * tasks.md, every worktree's loop, and for one piece of work its stories, requirements and the prompt
 * its first unfinished story would get.
 */
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { errorMessage } from "../errors.ts";
import { listLoops, type WorktreeLoop } from "../fleet/loops.ts";
import { layerOptions } from "../setup/config.ts";
import { LoopOptions } from "../setup/options.ts";
import { makePlan } from "../setup/plan.ts";
import { openSpecOptions } from "../setup/prepare.ts";
import { firstPrompt } from "../engine/prompt.ts";
import { changesDir, isOpenSpecProject, listChanges } from "../stories/openspec.ts";
import { changeRequirements, type Requirement } from "../stories/requirements.ts";
import { isComplete, parseStories, type Story } from "../stories/story.ts";
import { findTasksFile } from "../stories/tasks-file.ts";
import type { Worktree } from "../worktree/worktree.ts";

/** A piece of work the loop could do here: an OpenSpec change, or a plain tasks.md. */
export interface WorkItem {
  kind: "change" | "tasks-file";
  /** The change's name, or the tasks file's path relative to the worktree. */
  name: string;
  tasksFile: string;
  stories: Story[];
}

export interface SelectionData {
  worktree: Worktree;
  work: WorkItem[];
  /** Every worktree of the repository that has a loop (or an unreadable state). */
  loops: WorktreeLoop[];
  /** What could not be read (a broken tasks file, the openspec CLI missing), said in the footer. */
  warnings: string[];
}

export interface PreviewData {
  item: WorkItem;
  requirements: Requirement[];
  /** The prompt the first unfinished story would get, exactly as the loop builds it; null with `promptNote`. */
  prompt: string | null;
  /** Why there is no prompt (every story done, a config file the loop would refuse), or what differs. */
  promptNote: string | null;
}

const storiesOf = (file: string) => readFile(file, "utf8").then((t) => parseStories(t));

export const taskCount = (stories: Story[]) => ({
  done: stories.reduce((n, s) => n + s.tasks.filter((t) => t.done).length, 0),
  total: stories.reduce((n, s) => n + s.tasks.length, 0),
});
export const storyCount = (stories: Story[]) => ({ done: stories.filter(isComplete).length, total: stories.length });

/** `env`: where the openspec CLI is looked up and what it runs with (tests pass their own PATH). */
export async function loadSelection(wt: Worktree, env: Env = process.env): Promise<SelectionData> {
  const warnings: string[] = [];
  const [work, loops] = await Promise.all([
    loadWork(wt, warnings, env),
    listLoops(wt.path).catch((err) => {
      warnings.push(`The loops of the other worktrees could not be read: ${errorMessage(err)}`);
      return [];
    }),
  ]);
  return { worktree: wt, work, loops: withLoop(loops), warnings };
}

const withLoop = (loops: WorktreeLoop[]) => loops.filter((l) => l.loop || l.problem);

/** Every worktree's loop again (the selection refreshes them while it is shown); null when they cannot be read. */
export const loadLoops = (wt: Worktree) => listLoops(wt.path).then(withLoop, () => null);

type Env = Record<string, string | undefined>;

async function loadWork(wt: Worktree, warnings: string[], env: Env): Promise<WorkItem[]> {
  const work: WorkItem[] = [];
  if (isOpenSpecProject(wt.path)) {
    const os = openSpecOptions(wt.path, 30, (m) => warnings.push(m), undefined, env);
    const changes = await listChanges(os).catch((err) => {
      warnings.push(`The OpenSpec changes could not be listed: ${errorMessage(err)}`);
      return [];
    });
    for (const c of changes.filter((c) => c.total > c.completed).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const tasksFile = join(changesDir(wt.path), c.name, "tasks.md");
      const stories = await storiesOf(tasksFile).catch(() => []);
      work.push({ kind: "change", name: c.name, tasksFile, stories });
    }
  }
  const plain = await findTasksFile(wt.path);
  if (plain) {
    const stories = await storiesOf(plain).catch((err) => {
      warnings.push(`${relative(wt.path, plain)} could not be read: ${errorMessage(err)}`);
      return [];
    });
    work.push({ kind: "tasks-file", name: relative(wt.path, plain), tasksFile: plain, stories });
  }
  return work;
}

/**
 * The preview of one piece of work. The prompt comes from the loop's own plan and prompt builder,
 * with the options `run` would take here (config files; `--change` for a change), so it is the prompt
 * the first unfinished story would get, not a likeness of it.
 */
export async function loadPreview(wt: Worktree, item: WorkItem, env: Env = process.env): Promise<PreviewData> {
  const stories = await storiesOf(item.tasksFile).catch(() => item.stories);
  const fresh = { ...item, stories };
  const requirements = item.kind === "change" ? await changeRequirements(join(changesDir(wt.path), item.name)) : [];
  try {
    const layered = layerOptions(wt.path, item.kind === "change" ? { change: item.name } : {}, null);
    const parsed = LoopOptions.safeParse(layered.options);
    if (!parsed.success)
      return {
        item: fresh,
        requirements,
        prompt: null,
        promptNote: "No prompt: a config file sets an option that is not valid; `wt-loop config` shows which.",
      };
    const opts = parsed.data;
    const plan = await makePlan(
      wt.path,
      opts,
      openSpecOptions(wt.path, opts.commandTimeout, () => {}, undefined, env),
    );
    const prompt = firstPrompt(plan, wt.path, { maxRetries: opts.maxRetries, verify: opts.verify ?? null });
    if (!prompt) return { item: fresh, requirements, prompt: null, promptNote: "Every story is complete: a run would have nothing to do." };
    // A plain tasks.md beside an OpenSpec change with unfinished tasks: a run takes the change.
    const other =
      plan.tasksFile && plan.tasksFile !== item.tasksFile ? `A run here takes ${relative(wt.path, plan.tasksFile)} first; this is its prompt.` : null;
    return { item: fresh, requirements, prompt, promptNote: other };
  } catch (err) {
    return { item: fresh, requirements, prompt: null, promptNote: `No prompt: ${errorMessage(err)}` };
  }
}
