/** Keeps the loop's own files out of git (SPEC §3): added once to `info/exclude`, idempotently. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Git } from "./git.ts";
import { io } from "../errors.ts";
import { EXCLUDE_LINES } from "../state/paths.ts";

const MARKER = "# wt-loop: the loop's own files (state, events, logs, learnings)";

export async function ensureExcluded(git: Git): Promise<void> {
  // In a linked worktree this resolves to the common info/exclude, which every worktree reads.
  const file = await git.gitPath("info/exclude"); // asked of git once per worktree: this runs after every agent run
  const current = await io("read", file, () =>
    readFile(file, "utf8").catch((err) => ((err as { code?: string }).code === "ENOENT" ? "" : Promise.reject(err))),
  );
  const have = new Set(current.split("\n").map((l) => l.trim()));
  const missing = EXCLUDE_LINES.filter((l) => !have.has(l));
  if (missing.length === 0) return;
  const lead = current === "" || current.endsWith("\n") ? "" : "\n";
  const header = have.has(MARKER) ? [] : [MARKER];
  await io("write", file, async () => {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, current + lead + [...header, ...missing].join("\n") + "\n");
  });
}
