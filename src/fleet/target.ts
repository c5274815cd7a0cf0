/**
 * Which worktree a reader of every loop (the MCP server) means: a path or a worktree name among the
 * repository's worktrees, or by default the one it runs in.
 */
import { basename, resolve } from "node:path";
import { UserError } from "../errors.ts";
import { currentOf, gitWorktrees } from "./loops.ts";

export interface Target {
  path: string;
  name: string;
  branch: string | null;
  head: string | null;
}

export async function findWorktree(cwd: string, wanted?: string): Promise<Target> {
  const wts = await gitWorktrees(cwd);
  const named = (w: { path: string }) => basename(w.path);
  if (wanted === undefined || wanted === "") {
    const here = currentOf(
      cwd,
      wts.map((w) => w.path),
    );
    const w = wts.find((x) => x.path === here);
    if (!w) throw new UserError(`${cwd} is not inside a worktree of this repository; name one: ${wts.map(named).join(", ")}.`);
    return { ...w, name: named(w) };
  }
  const byPath = wts.find((w) => w.path === wanted || w.path === resolve(cwd, wanted));
  if (byPath) return { ...byPath, name: named(byPath) };
  const byName = wts.filter((w) => named(w) === wanted);
  if (byName.length === 1) return { ...byName[0]!, name: wanted };
  if (byName.length > 1) throw new UserError(`Several worktrees are named ${wanted}: ${byName.map((w) => w.path).join(", ")}. Give the path instead.`);
  throw new UserError(`No worktree ${JSON.stringify(wanted)} in this repository. Its worktrees: ${wts.map((w) => `${named(w)} (${w.path})`).join(", ")}.`);
}
