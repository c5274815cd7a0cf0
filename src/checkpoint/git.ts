/**
 * Typed git calls: argv arrays through the one spawn wrapper, under the command timeout and the
 * loop's stop signal. Checkpoint commits never run the user's hooks or ask for a signing passphrase;
 * no git of wt-loop's runs anything an agent could plant (proc/git-hardening.ts), and each worktree's
 * git folders are found once, before any agent ran, and pinned (git-admin.ts).
 */
import { constants } from "node:fs";
import { copyFile, lutimes, readFile, rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pinGitDirs, type GitDirs } from "../proc/git-hardening.ts";
import { CommandError, exec, type ExecResult } from "../proc/spawn.ts";
import { recordLocators, refuseBadLayout } from "./git-admin.ts";
import { acrossWorktrees } from "./worktree-list.ts";

export interface GitContext {
  cwd: string;
  timeoutMs?: number;
  /** The loop's stop signal. What must run after a stop (the completion) uses `uninterruptible()`. */
  signal?: AbortSignal;
  /** Told what wt-loop declined to do for safety (a nested repository not recorded): the loop says it. */
  onNotice?: (message: string) => void;
}

const GIT_ENV = { GIT_OPTIONAL_LOCKS: "0" };
/** Where each worktree's git folders are (by the folder git runs in), found at its first git call. */
const located = new Map<string, Promise<GitDirs | null>>();
/** Nested repositories already named to the user, so that each is said once. */
const namedNested = new Set<string>();

/**
 * Answers that do not change while a loop runs, per worktree: a git process each costs ~2–3 ms and
 * these were asked on every attempt (docs/performance.md).
 */
const gitPaths = new Map<string, Promise<string>>();
/** The `.git/<name>` paths a loop asks for (the operations in progress, the index, the stash's files): asked together. */
const GIT_PATHS = [
  "index",
  "index.lock",
  "HEAD",
  "info/exclude",
  "MERGE_HEAD",
  "rebase-merge",
  "rebase-apply",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "BISECT_LOG",
  "logs/refs/stash",
  "refs/stash",
  "packed-refs",
  "reftable",
];
const identities = new Map<string, Promise<Record<string, string>>>();
/** What a commit object holds never changes: its tree and subject, by object id (any repository). */
const ofCommit = new Map<string, Promise<string>>();
const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
function remember<T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    cache.set(key, (p = ask()));
    p.catch(() => cache.delete(key)); // a failure (a timeout, a stop) is asked again next time
  }
  return p;
}

export class Git {
  constructor(readonly ctx: GitContext) {}

  /**
   * Finds this worktree's git folders once and pins every later git here to them (git-hardening.ts):
   * a `.git` file or `commondir` an agent writes later is never followed. A worktree whose files say
   * something git would not have written is refused (git-admin.ts). Null outside a worktree (a
   * repository not made yet): git then finds its way as usual, hardened still. `again` after the
   * worktree was made anew (a lane's folder reused).
   */
  locate(again = false): Promise<GitDirs | null> {
    const cwd = this.ctx.cwd;
    let p = again ? undefined : located.get(cwd);
    if (!p) {
      located.set(cwd, (p = findDirs(cwd, this.ctx.timeoutMs)));
      p.then(
        (d) => d || located.delete(cwd),
        () => located.delete(cwd),
      );
    }
    return p;
  }

  /** Runs git; throws CommandError on non-zero exit unless `allowFailure`. */
  async run(args: string[], opts: { allowFailure?: boolean; env?: Record<string, string>; input?: string } = {}): Promise<ExecResult> {
    await this.locate();
    return exec(["git", ...args], {
      cwd: this.ctx.cwd,
      env: { ...process.env, ...GIT_ENV, ...opts.env },
      timeoutMs: this.ctx.timeoutMs,
      signal: this.ctx.signal,
      allowFailure: opts.allowFailure,
      input: opts.input,
    });
  }

  /**
   * Runs git, retrying while another process holds a lock it needs: `refs/stash`, `.git/config` and
   * `packed-refs` are shared by every worktree of a repository, so two loops meet there.
   */
  async runRetryingLocks(args: string[]): Promise<ExecResult> {
    const deadline = Date.now() + (this.ctx.timeoutMs ?? 30_000);
    while (true) {
      const r = await this.run(args, { allowFailure: true });
      if (r.code === 0) return r;
      // A compare-and-swap that lost ("but expected", "already exists") is real, not contention.
      const contended =
        /cannot lock ref|could not lock config file|Unable to create .*\.lock|File exists/i.test(r.stderr) &&
        !/but expected|already exists|is missing|unable to resolve/.test(r.stderr);
      if (!contended || Date.now() > deadline)
        throw new CommandError(`\`git ${args.slice(0, 3).join(" ")}\` failed (exit ${r.code}): ${r.stderr.trim()}`, ["git", ...args], "exit", r.code, r.stderr);
      await Bun.sleep(30 + Math.random() * 40);
    }
  }

  /** Runs a git that reads every worktree of the repository: one being added meanwhile is waited for (worktree-list.ts). */
  runAcrossWorktrees(args: string[]): Promise<ExecResult> {
    return acrossWorktrees(() => this.run(args), this.ctx.timeoutMs ?? 30_000, this.ctx.cwd);
  }

  /**
   * The same git without the stop signal: a step that changes refs, the index or the tree must not
   * be cut in half by a stop (it is still bounded by the command timeout).
   */
  uninterruptible(): Git {
    return new Git({ cwd: this.ctx.cwd, timeoutMs: this.ctx.timeoutMs, onNotice: this.ctx.onNotice });
  }

  /** A commit object of `tree` (no ref moves), authored like the checkpoint commits. */
  async commitTree(tree: string, parents: string[], message: string): Promise<string> {
    const args = ["-c", "commit.gpgsign=false", "commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-m", message];
    return (await this.run(args, { env: await this.identity() })).stdout.trim();
  }

  /**
   * Runs `fn` with a private index file (a copy of the real one, or empty), which is removed after:
   * the real index and the working tree are never written by what `fn` does through `env`. The git
   * folder is writable by the agent: the copy gets a random name and is created new (O_EXCL), never
   * through a link planted there (a predictable name let a link send the copy over any file).
   */
  async withTempIndex<T>(fn: (env: Record<string, string>) => Promise<T>, opts: { empty?: boolean } = {}): Promise<T> {
    const index = (this.indexPath ??= await this.gitPath("index"));
    const tmp = `${index}.wt-loop-${randomHex(12)}`;
    try {
      // COPYFILE_EXCL: the copy is created new (O_EXCL), so a link already there is refused, not followed.
      if (
        !opts.empty &&
        (await copyFile(index, tmp, constants.COPYFILE_EXCL).then(
          () => true,
          (e) => (e.code === "ENOENT" ? false : Promise.reject(e)),
        ))
      ) {
        // Racy git: an entry is compared by content, not stat data, only while it is not older than
        // the index file. A copy made a second later would hide a same-size edit made in the same
        // second the index recorded the file (a ticked box): the copy keeps the index's mtime.
        const { atime, mtime } = await stat(index);
        await lutimes(tmp, atime, mtime);
      } // no index yet: git starts an empty one
      return await fn({ GIT_INDEX_FILE: tmp });
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async out(args: string[]): Promise<string> {
    return (await this.run(args)).stdout.trim();
  }

  /** The tree of commit `rev` (`rev^{tree}`); remembered when `rev` is an object id. */
  treeOf(rev: string): Promise<string> {
    const ask = () => this.out(["rev-parse", `${rev}^{tree}`]);
    return OBJECT_ID.test(rev) ? remember(ofCommit, `${rev}^{tree}`, ask) : ask();
  }

  /** "abc1234 subject" of commit `sha` (`git log -1 --format=%h %s`), remembered. */
  describeCommit(sha: string): Promise<string> {
    const ask = () => this.out(["log", "-1", "--format=%h %s", sha]);
    return OBJECT_ID.test(sha) ? remember(ofCommit, `${sha} %h %s`, ask) : ask();
  }

  /** `git rev-parse --verify -q REF`, or null when it does not resolve. */
  async resolve(ref: string): Promise<string | null> {
    const r = await this.run(["rev-parse", "--verify", "-q", `${ref}^{commit}`], { allowFailure: true });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  head(): Promise<string | null> {
    return this.resolve("HEAD");
  }

  /** The current branch name, or null on a detached HEAD. */
  async branch(): Promise<string | null> {
    const r = await this.run(["symbolic-ref", "--short", "-q", "HEAD"], { allowFailure: true });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  /**
   * `git add -A` + a checkpoint commit (hooks and signing off, identity filled in when unset); returns the commit.
   * `nested`: the nested repositories as a `git status` of this tree just listed them (nothing ran in it since), so
   * that they are not listed again (a git process an iteration, docs/performance.md).
   */
  async commitAll(message: string, nested?: string[]): Promise<string> {
    await this.addAll(undefined, nested);
    await this.run(["-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "--allow-empty", "-m", message], { env: await this.identity() });
    return (await this.headFromFiles()) ?? (await this.head())!;
  }

  /**
   * HEAD read from the files git just wrote, with no process: `HEAD` names the branch and a commit
   * writes the branch's loose ref file, which wins over `packed-refs`. Null when that is not how
   * this repository keeps refs (a reftable, a ref only packed): then git is asked.
   */
  private async headFromFiles(): Promise<string | null> {
    const read = (path: string) =>
      readFile(path, "utf8").then(
        (t) => t.trim(),
        () => "",
      );
    const head = await read(await this.gitPath("HEAD"));
    const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
    const sha = ref ? await read(await this.gitPath(ref)) : head;
    return OBJECT_ID.test(sha) ? sha : null;
  }

  /** HEAD and whether the tree (untracked files included) differs from it, in one `git status`. */
  async headAndDirty(): Promise<{ head: string; dirty: boolean }> {
    const lines = (await this.out(["status", "--porcelain=v2", "--branch", "--untracked-files=all"])).split("\n");
    const head = lines.find((l) => l.startsWith("# branch.oid "))?.slice("# branch.oid ".length) ?? "";
    return { head, dirty: lines.some((l) => l !== "" && !l.startsWith("#")) };
  }

  /**
   * The branch checked out (null on a detached HEAD), HEAD, and the paths that differ from it (untracked files
   * included, ignored ones not), in one `git status`: a merge queue step asked these of two and three processes.
   */
  async worktreeStatus(): Promise<{ branch: string | null; head: string | null; paths: string[] }> {
    const fields = (await this.run(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"])).stdout.split("\0");
    let branch: string | null = null;
    let head: string | null = null;
    const paths: string[] = [];
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (f.startsWith("# branch.head ")) branch = f.slice("# branch.head ".length) === "(detached)" ? null : f.slice("# branch.head ".length);
      else if (f.startsWith("# branch.oid ")) head = OBJECT_ID.test(f.slice("# branch.oid ".length)) ? f.slice("# branch.oid ".length) : null;
      else if (f.startsWith("? ")) paths.push(f.slice(2));
      else if (f.startsWith("1 ")) paths.push(f.split(" ").slice(8).join(" "));
      else if (f.startsWith("2 "))
        paths.push(f.split(" ").slice(9).join(" ")), i++; // a rename: its source is the next field
      else if (f.startsWith("u ")) paths.push(f.split(" ").slice(10).join(" "));
    }
    return { branch, head, paths };
  }

  async isDirty(): Promise<boolean> {
    return (await this.headAndDirty()).dirty;
  }

  /**
   * Brings the index's stat data up to date: a file saved unchanged (an editor, `touch`) is clean again. Our own
   * `status` never writes the index back (GIT_OPTIONAL_LOCKS=0), and `read-tree -m` would call such a file
   * "not uptodate". Exit 1 only says files differ.
   */
  async refreshIndex(): Promise<void> {
    await this.run(["update-index", "-q", "--refresh"], { allowFailure: true });
  }

  /** Commits in `from..to`, oldest first. */
  async commitsBetween(from: string, to: string): Promise<string[]> {
    if (from === to) return [];
    const out = await this.out(["rev-list", "--reverse", `${from}..${to}`]);
    return out ? out.split("\n") : [];
  }

  /**
   * A tree id for the whole working tree (tracked + untracked, minus ignored) without touching the
   * real index: a copy of it is updated, so unchanged files are not re-hashed.
   */
  private indexPath?: string;
  snapshot(): Promise<string> {
    return this.withTempIndex(async (env) => {
      await this.addAll(env);
      return (await this.run(["write-tree"], { env })).stdout.trim();
    });
  }

  /**
   * `git add -A`, except nested repositories (a folder with a `.git` of its own, not yet a submodule):
   * git would record one as a gitlink — a submodule nobody asked for, into which every later `git
   * status` starts a git that runs what that repository's config says — or refuse the whole add when
   * it has no commit. It stays in the tree, untracked; the loop names it once.
   */
  private async addAll(env?: Record<string, string>, known?: string[]): Promise<void> {
    const nested = known ?? (await this.run(["ls-files", "-o", "--exclude-standard", "-z"], { env })).stdout.split("\0").filter((p) => p.endsWith("/"));
    await this.run(["add", "-A", "--", ":/", ...nested.map((p) => `:(top,exclude,literal)${p.slice(0, -1)}`)], { env });
    const fresh = nested.filter((p) => !namedNested.has(`${this.ctx.cwd}\0${p}`));
    for (const p of fresh) namedNested.add(`${this.ctx.cwd}\0${p}`);
    if (fresh.length)
      this.ctx.onNotice?.(
        `${fresh.map((p) => p.slice(0, -1)).join(", ")} ${fresh.length > 1 ? "are git repositories" : "is a git repository"} ` +
          `of ${fresh.length > 1 ? "their" : "its"} own inside the worktree: ` +
          "wt-loop does not record it in a checkpoint (git would make it a submodule, and run its config on every status). " +
          "It is left in the tree, untracked. " +
          `To keep it as a submodule, add it yourself: git submodule add <url> ${fresh[0]!.slice(0, -1)}`,
      );
  }

  /**
   * Where `.git/<name>` is for this worktree (linked worktrees share some files): asked once per worktree, and with
   * the first name asked, the others a loop asks (GIT_PATHS) in the same `rev-parse`: a start asked fourteen
   * processes for them.
   */
  gitPath(name: string): Promise<string> {
    const cwd = this.ctx.cwd;
    const known = gitPaths.get(`${cwd}\0${name}`);
    if (known) return known;
    const names = [name, ...GIT_PATHS.filter((n) => n !== name && !gitPaths.has(`${cwd}\0${n}`))];
    const all = this.out(["rev-parse", ...names.flatMap((n) => ["--git-path", n])]).then((out) => {
      const lines = out.split("\n");
      // One line a name; a path with a line break in it cannot be told apart: then each is asked alone.
      return lines.length === names.length ? lines : Promise.all(names.map((n) => this.out(["rev-parse", "--git-path", n])));
    });
    names.forEach((n, i) => remember(gitPaths, `${cwd}\0${n}`, async () => resolve(cwd, (await all)[i]!)));
    return gitPaths.get(`${cwd}\0${name}`)!;
  }

  /** The folder every worktree of the repository shares (`--git-common-dir`), absolute: found with the worktree's git folders. */
  commonDir(): Promise<string> {
    return remember(gitPaths, `${this.ctx.cwd}\0--git-common-dir`, async () => {
      const dirs = await this.locate();
      return dirs ? dirs.commonDir : resolve(this.ctx.cwd, await this.out(["rev-parse", "--git-common-dir"]));
    });
  }

  /** Repositories without user.name/email still get checkpoints, authored by wt-loop (asked once per worktree). */
  identity(): Promise<Record<string, string>> {
    return remember(identities, this.ctx.cwd, async () => {
      const name = (await this.run(["config", "user.name"], { allowFailure: true })).stdout.trim();
      const email = (await this.run(["config", "user.email"], { allowFailure: true })).stdout.trim();
      return {
        ...(name ? {} : { GIT_AUTHOR_NAME: "wt-loop", GIT_COMMITTER_NAME: "wt-loop" }),
        ...(email ? {} : { GIT_AUTHOR_EMAIL: "wt-loop@localhost", GIT_COMMITTER_EMAIL: "wt-loop@localhost" }),
      };
    });
  }
}

/** The worktree's git folders as git finds them now (refused when not as git writes them), pinned. */
async function findDirs(cwd: string, timeoutMs = 30_000): Promise<GitDirs | null> {
  const r = await exec(["git", "rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"], { cwd, timeoutMs, allowFailure: true });
  const [gitDir, common, workTree] = r.stdout.split("\n");
  if (r.code !== 0 || !gitDir || !common || !workTree) return null;
  const dirs = { gitDir, commonDir: resolve(cwd, common), workTree };
  refuseBadLayout(dirs);
  pinGitDirs(cwd, dirs);
  recordLocators(dirs.commonDir);
  return dirs;
}

const randomHex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
