// findTop answers `git rev-parse --show-toplevel` from the files, to spare start-up a git process. It may
// only ever say what git says, or step aside (null) and let git answer: every layout below is checked
// against git itself, and the plain ones must be answered (else the walk would be dead weight).
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findTop } from "../../src/worktree/find-top.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

/** What git says the worktree is from `cwd`, null when it refuses. */
function gitTop(cwd: string, env: Record<string, string | undefined> = process.env): string | null {
  const r = Bun.spawnSync(["git", "rev-parse", "--show-toplevel"], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString().replace(/\n$/, ""); // exactly as printed: a name may end in a space
  return r.exitCode === 0 && out ? out : null;
}

const cleanEnv = () => {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("GIT_")) delete env[k];
  return env;
};

function agrees(cwd: string, env = cleanEnv()): string | null {
  const walked = findTop(cwd, env);
  if (walked !== null) expect(walked).toBe(gitTop(cwd, env)!);
  return walked;
}

describe("findTop answers as git does", () => {
  test("the plain cases are answered: the top, a folder deep inside, through a symlink, a linked worktree, a repository inside another", () => {
    const repo = makeRepo();
    mkdirSync(join(repo, "src/deep"), { recursive: true });
    expect(agrees(repo)).toBe(repo);
    expect(agrees(join(repo, "src/deep"))).toBe(repo);
    const link = join(tempDir(), "link");
    symlinkSync(join(repo, "src"), link);
    expect(agrees(link)).toBe(repo);
    const wt = join(tempDir(), "feature x ");
    git(repo, "worktree", "add", "-q", "-b", "feature-x", wt);
    mkdirSync(join(wt, "sub"));
    expect(agrees(wt)).toBe(wt);
    expect(agrees(join(wt, "sub"))).toBe(wt);
    const inner = join(repo, "vendor/inner");
    mkdirSync(inner, { recursive: true });
    git(inner, "init", "-q");
    expect(agrees(inner)).toBe(inner);
  });

  test("where git would refuse or answer otherwise, the walk steps aside", () => {
    const repo = makeRepo();
    // Inside the git directory, a linked worktree's git directory, no repository at all.
    expect(findTop(join(repo, ".git"), cleanEnv())).toBeNull();
    expect(findTop(join(repo, ".git/refs"), cleanEnv())).toBeNull();
    expect(findTop(tempDir(), cleanEnv())).toBeNull();
    // A bare repository; a .git file pointing nowhere; an empty .git folder.
    const bare = join(tempDir(), "bare.git");
    git(tempDir(), "init", "-q", "--bare", bare);
    expect(findTop(bare, cleanEnv())).toBeNull();
    const bareInside = join(repo, "mirror.git");
    git(repo, "init", "-q", "--bare", bareInside);
    expect(gitTop(join(bareInside, "refs"), cleanEnv())).toBeNull();
    expect(findTop(join(bareInside, "refs"), cleanEnv())).toBeNull();
    const broken = tempDir();
    writeFileSync(join(broken, ".git"), "gitdir: /nowhere/at/all\n");
    expect(findTop(broken, cleanEnv())).toBeNull();
    expect(gitTop(broken, cleanEnv())).toBeNull();
    const empty = tempDir();
    mkdirSync(join(empty, ".git"));
    expect(findTop(empty, cleanEnv())).toBeNull();
    // git's discovery settings in the environment; a worktree moved by the configuration.
    expect(findTop(repo, { ...cleanEnv(), GIT_CEILING_DIRECTORIES: repo })).toBeNull();
    expect(findTop(repo, { ...cleanEnv(), GIT_DIR: join(repo, ".git") })).toBeNull();
    const moved = makeRepo();
    const elsewhere = tempDir();
    git(moved, "config", "core.worktree", elsewhere);
    expect(gitTop(moved, cleanEnv())).toBe(elsewhere);
    expect(findTop(moved, cleanEnv())).toBeNull();
  });

  test("a repository made bare in any spelling git reads (a comment, quotes, a number, the key alone, on the section's line): the walk steps aside where git refuses", () => {
    const spellings = [
      "[core]\n\tbare = true ; set by hand\n",
      '[core]\n\tbare = "true"\n',
      "[core]\n\tbare = 2\n",
      "[core]\n\tbare\n",
      "[core] bare = true\n",
    ];
    for (const config of spellings) {
      const repo = makeRepo();
      writeFileSync(join(repo, ".git/config"), config, { flag: "a" });
      expect(gitTop(repo, cleanEnv())).toBeNull();
      expect(findTop(repo, cleanEnv())).toBeNull();
    }
  });
});
