/**
 * Every git wt-loop runs, hardened in one place (the spawn wrapper calls `hardenGit` for any `git`).
 * wt-loop's git runs outside the sandbox, as the user, on files the agent may have written: the
 * worktree, and the parts of the git folder a commit needs. Git runs commands it finds there — hooks
 * (`core.hooksPath` may name a folder in the worktree, husky's `.husky/_`), `core.fsmonitor`, a nested
 * repository's config (a submodule `git status` looks into), a pager, an editor, transports — and a
 * `commondir` or `.git` file the agent wrote makes git read another repository's config altogether.
 * So (docs/security.md, "wt-loop's own git"):
 *
 * - the settings that run something are fixed on every call through GIT_CONFIG_PARAMETERS (what `-c`
 *   sets, appended after any the user's environment holds, so ours win; git passes it on to the git
 *   processes it starts itself, a submodule's included);
 * - a worktree whose folders were resolved once (`pinGitDirs`, at the first git call of a Git object,
 *   before any agent ran) gets GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE: git no longer reads the
 *   `.git` file or `commondir` to find its repository, so one planted mid-run is never followed.
 *
 * The user's own settings stay (user.name/email, filters such as git-lfs, aliases): they come from
 * files the agent cannot write (the pinned config, the global one).
 */

/** What runs a command, and what wt-loop's git never needs: each set to what runs nothing. */
const FIXED: [string, string][] = [
  ["core.fsmonitor", "false"], // a command run on every index read
  ["core.hooksPath", "/dev/null"], // no hook of any kind: pre-commit, post-index-change, reference-transaction…
  ["submodule.recurse", "false"], // no checkout, status or reset inside a nested repository
  ["diff.ignoreSubmodules", "all"], // `status`/`diff` do not start a git in each submodule (its own config)
  ["status.submoduleSummary", "false"],
  ["protocol.allow", "never"], // wt-loop never fetches: no transport, so no ssh command or credential helper
  ["log.showSignature", "false"], // no gpg for `git log`
  ["core.pager", "cat"],
];
const FIXED_PARAMETERS = FIXED.map(([k, v]) => `'${k}=${v}'`).join(" ");

/** Environment of every git wt-loop runs (the pinned folders are added per worktree). */
const FIXED_ENV = {
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  GIT_EDITOR: ":", // `:` is git's "no editor": a message is never asked for
  GIT_SEQUENCE_EDITOR: ":",
};

export interface GitDirs {
  /** The worktree's own git folder (`.git`, or `.git/worktrees/NAME` of a linked worktree). */
  gitDir: string;
  /** The repository's shared folder (config, objects, refs). */
  commonDir: string;
  /** The top of the worktree. */
  workTree: string;
}

const pinned = new Map<string, GitDirs>();

/** From now on, git run with `cwd` (a worktree's top or a folder in it, as given) uses exactly these folders. */
export function pinGitDirs(cwd: string, dirs: GitDirs): void {
  pinned.set(cwd, dirs);
}

/** The folders pinned for `cwd`, if any. */
export const pinnedGitDirs = (cwd: string): GitDirs | undefined => pinned.get(cwd);

/** Every worktree pinned in this process (the runner's and its lanes'). */
export const allPinned = (): GitDirs[] => [...pinned.values()];

/** The environment a `git` in `cwd` gets: `env` with the fixed settings (and the pinned folders) on top. */
export function hardenGit(env: Record<string, string | undefined>, cwd: string): Record<string, string | undefined> {
  const given = env.GIT_CONFIG_PARAMETERS;
  const dirs = pinned.get(cwd);
  return {
    ...env,
    ...FIXED_ENV,
    GIT_CONFIG_PARAMETERS: given ? `${given} ${FIXED_PARAMETERS}` : FIXED_PARAMETERS,
    ...(dirs ? { GIT_DIR: dirs.gitDir, GIT_COMMON_DIR: dirs.commonDir, GIT_WORK_TREE: dirs.workTree } : {}),
  };
}
