/**
 * OpenSpec changes (docs/how-it-works.md). The `openspec` CLI is asked which changes are active and where a
 * change's context files are; without the CLI the files are read directly (one warning says so).
 * Telemetry is always off: wt-loop never makes a network call on the user's behalf.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { UserError } from "../errors.ts";
import { exec } from "../proc/spawn.ts";
import { parseTasks } from "./checkbox.ts";

export interface OpenSpecOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  warn: (message: string) => void;
  /** Where the CLI is looked up (PATH) and what it runs with; this process's environment by default. */
  env?: Record<string, string | undefined>;
}

export interface ChangeSummary {
  name: string;
  completed: number;
  total: number;
}

export interface ChangeContext {
  name: string;
  dir: string;
  tasksFile: string;
  proposal: string[];
  design: string[];
  specs: string[];
  scenarios: string[];
}

const ListJson = z.object({
  changes: z.array(z.object({ name: z.string(), completedTasks: z.number(), totalTasks: z.number() })),
});
const ApplyJson = z.object({ changeDir: z.string(), contextFiles: z.record(z.string(), z.array(z.string())) });

export const changesDir = (worktree: string) => join(worktree, "openspec", "changes");
export const isOpenSpecProject = (worktree: string) => existsSync(changesDir(worktree));

async function openspec(args: string[], opts: OpenSpecOptions): Promise<unknown | null> {
  const base = opts.env ?? process.env;
  const bin = Bun.which("openspec", { PATH: base.PATH ?? "" });
  if (!bin) {
    warnMissingOnce(opts);
    return null;
  }
  const env = { ...base, OPENSPEC_TELEMETRY: "0" };
  const { stdout } = await exec([bin, ...args, "--json"], { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs, signal: opts.signal });
  return JSON.parse(stdout);
}

export const MISSING_CLI_WARNING =
  "The openspec CLI is not installed, so wt-loop reads openspec/changes/ itself: it counts tasks the way OpenSpec does, " +
  "but cannot ask OpenSpec which context files (proposal, design, specs) a change declares and uses the files it finds. " +
  "Install it with `npm install -g @fission-ai/openspec` to use it.";

// Once per command (per process): every story source and every iteration asks again.
let missingWarned = false;
function warnMissingOnce(opts: OpenSpecOptions) {
  if (missingWarned) return;
  missingWarned = true;
  opts.warn(MISSING_CLI_WARNING);
}

/** The demo reads its own change and needs no OpenSpec CLI: nothing is lost there, so nothing is said. */
export function skipMissingCliWarning(): void {
  missingWarned = true;
}

export async function listChanges(opts: OpenSpecOptions): Promise<ChangeSummary[]> {
  const json = await openspec(["list"], opts);
  if (json !== null) {
    return ListJson.parse(json).changes.map((c) => ({ name: c.name, completed: c.completedTasks, total: c.totalTasks }));
  }
  const dir = changesDir(opts.cwd);
  const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && e.name !== "archive");
  return Promise.all(
    names.map(async ({ name }) => {
      const tasks = parseTasks(await readFile(join(dir, name, "tasks.md"), "utf8").catch(() => ""));
      return { name, completed: tasks.filter((t) => t.done).length, total: tasks.length };
    }),
  );
}

/** The change to implement: the one asked for, or the only active change with unfinished tasks. */
export async function pickChange(requested: string | undefined, opts: OpenSpecOptions): Promise<string | null> {
  const changes = await listChanges(opts);
  if (requested) {
    if (!changes.some((c) => c.name === requested)) {
      const names = changes.map((c) => `  ${c.name}`).join("\n") || "  (none)";
      throw new UserError(`OpenSpec change '${requested}' not found. Active changes:\n${names}`);
    }
    return requested;
  }
  const unfinished = changes.filter((c) => c.total > c.completed);
  if (unfinished.length > 1) {
    const names = unfinished.map((c) => `  ${c.name}  (${c.completed}/${c.total} tasks)`).join("\n");
    throw new UserError(`Several OpenSpec changes have unfinished tasks; choose one with --change NAME:\n${names}`);
  }
  return unfinished[0]?.name ?? null;
}

export async function changeContext(name: string, opts: OpenSpecOptions): Promise<ChangeContext> {
  const json = await openspec(["instructions", "apply", "--change", name], opts);
  const dir = json ? ApplyJson.parse(json).changeDir : join(changesDir(opts.cwd), name);
  const files = json ? ApplyJson.parse(json).contextFiles : await contextFilesOf(dir);
  const specs = files.specs ?? [];
  const scenarios = (await Promise.all(specs.map((f) => readFile(f, "utf8").then(extractScenarios, () => [])))).flat();
  return {
    name,
    dir,
    tasksFile: join(dir, "tasks.md"),
    proposal: files.proposal ?? [],
    design: files.design ?? [],
    specs,
    scenarios,
  };
}

async function contextFilesOf(dir: string): Promise<Record<string, string[]>> {
  const present = (f: string) => (existsSync(join(dir, f)) ? [join(dir, f)] : []);
  const specs: string[] = [];
  const specsDir = join(dir, "specs");
  for (const e of await readdir(specsDir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory() && existsSync(join(specsDir, e.name, "spec.md"))) specs.push(join(specsDir, e.name, "spec.md"));
  }
  return { proposal: present("proposal.md"), design: present("design.md"), specs: specs.sort() };
}

/** `#### Scenario:` blocks of a spec delta, each with its WHEN/THEN lines. */
export function extractScenarios(markdown: string): string[] {
  const out: string[] = [];
  let current: string[] | null = null;
  for (const line of markdown.split("\n")) {
    if (/^####\s+Scenario:/.test(line)) {
      if (current) out.push(current.join("\n").trim());
      current = [line.replace(/^####\s+/, "")];
    } else if (/^#{1,4}\s/.test(line)) {
      if (current) out.push(current.join("\n").trim());
      current = null;
    } else if (current) current.push(line);
  }
  if (current) out.push(current.join("\n").trim());
  return out;
}
