/** Keeps the loop's own files out of git (docs/files.md): added once to `info/exclude`, idempotently. */
import { closeSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { openSafe, writeFileSafe } from "../proc/safe-fs.ts";
import type { Git } from "./git.ts";
import { io } from "../errors.ts";
import { EXCLUDE_LINES } from "../state/paths.ts";

const MARKER = "# wt-loop: the loop's own files (state, events, logs, learnings)";

export async function ensureExcluded(git: Git): Promise<void> {
  // In a linked worktree this resolves to the common info/exclude, which every worktree reads.
  const file = await git.gitPath("info/exclude"); // asked of git once per worktree: this runs after every agent run
  // Checked from the git folder down: an agent can make `info/` or `info/exclude` a link.
  const root = dirname(dirname(file));
  const current = await io("read", file, () => {
    try {
      const fd = openSafe(root, file, "read");
      try {
        return readFileSync(fd, "utf8");
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return "";
      throw err;
    }
  });
  const have = new Set(current.split("\n").map((l) => l.trim()));
  const missing = EXCLUDE_LINES.filter((l) => !have.has(l));
  if (missing.length === 0) return;
  const lead = current === "" || current.endsWith("\n") ? "" : "\n";
  const header = have.has(MARKER) ? [] : [MARKER];
  await io("write", file, () => writeFileSafe(root, file, current + lead + [...header, ...missing].join("\n") + "\n"));
}
