/** Disposable real git repositories for tests. */
import { chmodSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const made: string[] = [];
/**
 * Removes every folder `tempDir` and `scratchDir` made so far. test/preload.ts runs it after each test file:
 * an `afterAll` registered here would bind only to the first file that loads this module (`bun test` loads it
 * once for all files), and every later file's folders were left in /tmp (22,000 of them, GBs, after a day).
 * Outside `bun test` the scripts remove their own (scripts/soak.ts keeps a failing round's, to replay it).
 */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A new empty folder in `parent` (the temporary folder unless a test needs another), removed when the test file ends. */
export function tempDir(prefix = "wt-loop-test-", parent = tmpdir()): string {
  const d = realpathSync(mkdtempSync(join(parent, prefix)));
  made.push(d);
  return d;
}

export function git(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

export function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** A repository with one commit holding `files` (a README when none are given). */
/** A bare repository in a folder of its own, added to `repo` as `origin`, with `main` pushed to it: the remote a pull request's tests push to. */
export function addBareOrigin(repo: string): string {
  const remote = join(tempDir("remote-"), "origin.git");
  git(tempDir(), "init", "-q", "--bare", remote);
  git(repo, "remote", "add", "origin", remote);
  git(repo, "push", "-q", "origin", "main");
  return remote;
}

export function makeRepo(files: Record<string, string> = { "README.md": "# test\n" }, opts: { commit?: boolean } = {}): string {
  const dir = join(tempDir(), "repo");
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.name", "Test User");
  git(dir, "config", "user.email", "test@example.com");
  git(dir, "config", "commit.gpgsign", "false");
  write(dir, files);
  if (opts.commit !== false) {
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "base");
  }
  return dir;
}

export const TASKS_2_STORIES = "# Tasks\n\n## 1. First story\n- [ ] 1.1 Make a\n- [ ] 1.2 Make b\n\n## 2. Second story\n- [ ] 2.1 Make c\n";

/** An OpenSpec change with two stories, as `openspec new change` + written artifacts would leave it. */
export function openspecFiles(change = "add-thing", tasks = TASKS_2_STORIES): Record<string, string> {
  const d = `openspec/changes/${change}`;
  return {
    "openspec/config.yaml": "schema: spec-driven\n",
    [`${d}/.openspec.yaml`]: "schema: spec-driven\n",
    [`${d}/proposal.md`]: "# Proposal\n\nAdd a thing.\n",
    [`${d}/design.md`]: "# Design\n\nKeep it small.\n",
    [`${d}/specs/thing/spec.md`]:
      "## ADDED Requirements\n\n### Requirement: Thing\nThe system SHALL do the thing.\n\n#### Scenario: Thing works\n- **WHEN** asked\n- **THEN** it does the thing\n",
    [`${d}/tasks.md`]: tasks,
  };
}

/**
 * A folder outside the temp folder (under node_modules/.cache, removed after the file's tests): for programs
 * a sandboxed command runs, since the sandbox's /tmp is a private one. Readable by every user (a test may
 * run wt-loop as another).
 */
export function scratchDir(prefix = "wt-loop-test-"): string {
  const root = join(import.meta.dir, "../../node_modules/.cache/wt-loop-tests");
  mkdirSync(root, { recursive: true });
  const d = tempDir(prefix, root);
  chmodSync(d, 0o755);
  return d;
}
