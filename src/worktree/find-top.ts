/**
 * The worktree around a folder found by looking at the files, as `git rev-parse --show-toplevel` finds
 * it, without starting git: at start-up that process was most of what `status` waited for beyond its
 * own modules (docs/performance.md "Start-up"). It answers only the plain case — the nearest folder
 * holding a `.git` directory or a `.git` file that points at a git directory, owned by this user, on
 * the same filesystem, with no setting that moves the worktree — and null whenever git could answer
 * otherwise; the caller then asks git, whose answer (or refusal) is the rule.
 */
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/** git's own discovery settings: with any of them set, git decides. */
// GIT_CONFIG_COUNT sets any key from the environment (core.bare with it made the main worktree bare to git).
const DISCOVERY_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/**
 * The start of a config line that sets `key` (case-insensitive; a key may follow its `[section]` on the same
 * line, and a key alone means true): for checks that must see every spelling git reads, whatever the value.
 */
export const setsKey = (keys: string) => `^\\s*(?:\\[[^\\]\\n]*\\]\\s*)?(?:${keys})(?![\\w-])`;

/**
 * A config that sets the worktree elsewhere, makes the repository bare, or sets what the walk cannot check.
 * `bare` is plain only as `false` (git init writes `bare = false`); a comment, quotes, a number or the key
 * alone all read as git reads them, so anything else steps aside.
 */
const MOVES_WORKTREE = new RegExp(`${setsKey("worktree|directory")}|${setsKey("bare")}(?!\\s*=\\s*false\\s*$)|^\\s*\\[\\s*(include|includeif)\\b`, "im");

export function findTop(cwd: string, env: Record<string, string | undefined> = process.env): string | null {
  if (process.platform === "win32") return null;
  for (const k of DISCOVERY_ENV) if (env[k] !== undefined) return null; // a loop, not `some`: see catalog.ts findCommand
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  try {
    let dir = realpathSync(cwd);
    const device = statSync(dir).dev;
    for (;;) {
      // Inside a git directory (the repository's, a bare one, a linked worktree's): git says "not a worktree".
      if (basename(dir) === ".git" || isGitDir(dir)) return null;
      const top = topAt(dir, uid, device);
      if (top !== undefined) return top;
      const up = dirname(dir);
      if (up === dir) return null; // no repository around: git says so, in its words
      dir = up;
    }
  } catch {
    return null;
  }
}

/** As git tells a git directory at each step of its walk, before it looks for `.git`: HEAD and objects/. */
function isGitDir(dir: string): boolean {
  try {
    return lstatSync(join(dir, "HEAD")).isFile() && statSync(join(dir, "objects")).isDirectory();
  } catch {
    return false;
  }
}

/** `dir` when it is the worktree's top; null when git must decide; undefined when the walk goes on up. */
function topAt(dir: string, uid: number, device: number): string | null | undefined {
  const here = statSync(dir);
  if (here.dev !== device) return null; // git stops at a filesystem's edge
  let dotGit;
  try {
    dotGit = lstatSync(join(dir, ".git"));
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    return null;
  }
  // git refuses a repository another user owns (safe.directory): let it say so.
  if (here.uid !== uid || dotGit.uid !== uid) return null;
  let gitDir: string;
  if (dotGit.isDirectory()) gitDir = join(dir, ".git");
  else if (dotGit.isFile()) {
    const m = /^gitdir: (.+)$/m.exec(readFileSync(join(dir, ".git"), "utf8"));
    if (!m) return null;
    gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(dir, m[1]!);
  } else return null;
  if (!statSync(join(gitDir, "HEAD")).isFile()) return null;
  for (const config of configsOf(gitDir)) if (MOVES_WORKTREE.test(config)) return null;
  return dir;
}

/** The config files git reads for this git directory: its own, and a linked worktree's common one. */
function configsOf(gitDir: string): string[] {
  const read = (path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return "";
      throw err;
    }
  };
  const common = read(join(gitDir, "commondir")).trim();
  const texts = [read(join(gitDir, "config")), read(join(gitDir, "config.worktree"))];
  if (common) texts.push(read(join(isAbsolute(common) ? common : resolve(gitDir, common), "config")));
  return texts;
}
