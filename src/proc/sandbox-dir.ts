/**
 * The folder of a loop's sandbox (its /tmp, the forwards' sockets, a hosts file), named for its run: a runner
 * killed before it could remove it (`wt-loop stop --force`, kill -9) has it removed by whoever finds the runner
 * dead (control/liveness.ts), as its agents' leftover processes are — else each forced stop left one behind.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `wt-loop-sandbox-<run>-`: the run's tag (proc/contain.ts runTag, a path and a time) hashed into a name. */
const prefixOf = (run: string) => `wt-loop-sandbox-${createHash("sha256").update(run).digest("hex").slice(0, 16)}-`;

/** A new folder for the sandbox of run `run` (mkdtemp: the rest of its name cannot be guessed). */
export const makeSandboxDir = (run: string): string => mkdtempSync(join(tmpdir(), prefixOf(run)));

/** Removes the sandbox folders of run `run`: only folders, and only this user's. */
export function removeSandboxDirs(run: string): void {
  const prefix = prefixOf(run);
  let names: string[] = [];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(prefix));
  } catch {
    return; // no temporary folder to read: nothing of ours there either
  }
  for (const name of names) {
    const path = join(tmpdir(), name);
    try {
      const st = lstatSync(path);
      if (st.isDirectory() && st.uid === process.getuid?.()) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}
