/**
 * Git variables that say where the repository is (a shell that exported GIT_DIR, a git hook, an
 * agent's environment). wt-loop always works on the worktree that contains the current folder
 * (docs/commands.md): with GIT_DIR set and GIT_WORK_TREE not, git would take the current folder for
 * the top of the worktree (a subfolder becomes "the worktree"), or another repository altogether,
 * and every git call, agent and --verify command would inherit that.
 *
 * So they are taken out of wt-loop's environment before anything runs — its git calls and every
 * child (agent, --verify, --notify) see none. When they named the repository and worktree the
 * current folder is in, nothing changes; when they named another, the command refuses: acting on
 * either one would be a guess.
 */
import { UserError } from "../errors.ts";

const LOCATORS = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
];

/** True when the environment holds one of them (the only case that costs anything). */
export function hasGitLocators(env: Record<string, string | undefined> = process.env): boolean {
  for (const k of LOCATORS) if (env[k] !== undefined) return true; // a loop, not `some`: see catalog.ts findCommand
  return false;
}

/**
 * Removes them from `env` (process.env: every later spawn is given it). With `worktree` (a command
 * that acts on the current folder's worktree), a GIT_DIR or GIT_WORK_TREE that names another
 * repository or worktree than the folder's own is refused with a UserError.
 */
export async function dropGitLocators(worktree: boolean, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Promise<void> {
  const given = Object.fromEntries(LOCATORS.filter((k) => env[k] !== undefined).map((k) => [k, env[k]!]));
  for (const k of LOCATORS) delete env[k];
  if (!worktree || (given.GIT_DIR === undefined && given.GIT_WORK_TREE === undefined)) return;
  const { exec } = await import("../proc/spawn.ts"); // loaded only in this rare case: start-up stays lean
  const where = async (extra: Record<string, string>) => {
    try {
      const r = await exec(["git", "rev-parse", "--absolute-git-dir", "--show-toplevel"], {
        cwd,
        env: { ...env, ...extra },
        timeoutMs: 30_000,
        allowFailure: true,
      });
      const [dir, top] = r.stdout.split("\n");
      return r.code === 0 && dir && top ? { dir: real(dir), top: real(top) } : null;
    } catch {
      return null; // git missing: resolving the worktree says so next
    }
  };
  const named = Object.fromEntries(["GIT_DIR", "GIT_WORK_TREE"].filter((k) => given[k] !== undefined).map((k) => [k, given[k]!]));
  const [own, theirs] = await Promise.all([where({}), where(named)]);
  if (own && theirs && own.dir === theirs.dir && (given.GIT_WORK_TREE === undefined || own.top === theirs.top)) return;
  const set = Object.entries(named)
    .map(([k, v]) => `${k}=${v}`)
    .join(" and ");
  throw new UserError(
    `${set} ${Object.keys(named).length > 1 ? "are" : "is"} set` +
      (own ? `, naming another repository or worktree than the one this folder is in (${own.top}). ` : `, but this folder is not in a git worktree. `) +
      "wt-loop works on the worktree of the current folder and does not follow GIT_DIR or GIT_WORK_TREE: " +
      "run it in the worktree you mean, without them (`env -u GIT_DIR -u GIT_WORK_TREE wt-loop …`).",
  );
}

function real(path: string): string {
  try {
    // Required here, not imported: cli.ts loads this module for every command, `--version` included,
    // and node:fs costs start-up that only this rare case needs.
    return (require("node:fs") as typeof import("node:fs")).realpathSync(path);
  } catch {
    return path;
  }
}
