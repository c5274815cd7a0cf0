/**
 * Finding a tasks.md (docs/how-it-works.md): `<worktree>/tasks.md`, else the shallowest one at depth ≤ 3,
 * then by path, skipping `archive/`, `node_modules/` and `.git/` — the same choice on every machine.
 */
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

const SKIP = new Set(["archive", "node_modules", ".git"]);
const MAX_DEPTH = 3;

export async function findTasksFile(worktree: string): Promise<string | null> {
  let level = [worktree];
  for (let depth = 1; depth <= MAX_DEPTH && level.length; depth++) {
    const found: string[] = [];
    const next: string[] = [];
    for (const dir of level) {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.isDirectory() && !SKIP.has(e.name)) next.push(join(dir, e.name));
        else if (e.name === "tasks.md" && (e.isFile() || e.isSymbolicLink())) found.push(join(dir, e.name));
      }
    }
    if (found.length) return found.sort((a, b) => compare(relative(worktree, a), relative(worktree, b)))[0]!;
    level = next;
  }
  return null;
}

// Byte order, not locale order: the same answer whatever LANG says.
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
