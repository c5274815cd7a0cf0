/**
 * The order of the binary's bytecode (compile.ts `bytecodeOrder`): a first build is run, with Bun's
 * BUN_BYTECODE_ORDER_OUT, on the commands run most — `status`, `status --json`, `history`, `list`, and
 * `status` of a state in the seed's format — in scratch repositories holding a finished loop's state; the
 * final build then lays out together, at the front, the functions those runs used, so a start-up touches
 * fewer pages of the binary (~110 page faults fewer for `status`, ~45 for `--version`; docs/performance.md).
 * The profile names functions by their code, so the host's applies to every target's build of the same sources.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { State } from "../../src/state/schema.ts";
import { sampleIteration, sampleState } from "../../test/helpers/state.ts";

/**
 * The commands profiled, the most common first (Bun gives the first file's functions the front), and the
 * repository each runs in: `ours` holds our state, `seed` the same state without `schema_version` (the
 * format wt-tools' bash wt-loop wrote, read by state/seed.ts).
 */
export const PROFILED: { argv: string[]; repo: "ours" | "seed" }[] = [
  { argv: ["status"], repo: "ours" },
  { argv: ["status", "--json"], repo: "ours" },
  { argv: ["history"], repo: "ours" },
  { argv: ["list"], repo: "ours" },
  { argv: ["status"], repo: "seed" },
];

/**
 * The environment of the scratch runs, without git's own variables: a build run from a git hook has GIT_DIR
 * and its kin set, and the scratch repositories' init and commit would land in the hook's repository.
 */
const scratchEnv = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("GIT_")));

/** A scratch folder for the profiles and their repositories; the caller removes it. */
export const scratch = () => mkdtempSync(join(tmpdir(), "wt-loop-bytecode-order-"));

/**
 * Runs `binary` on each profiled command in repositories under `dir` and returns the profiles it wrote.
 * Throws when a command fails: a profile of an error path would lay out the wrong functions.
 */
export function recordBytecodeOrder(binary: string, dir: string): string[] {
  const repos = { ours: loopRepo(join(dir, "ours"), true), seed: loopRepo(join(dir, "seed"), false) };
  return PROFILED.map(({ argv, repo }, i) => {
    const profile = join(dir, `order-${i}.txt`);
    const env = { ...scratchEnv(), BUN_BYTECODE_ORDER_OUT: profile, NO_COLOR: "1" };
    const r = Bun.spawnSync([binary, ...argv], { cwd: repos[repo], env, stdout: "ignore", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`recording the bytecode order: wt-loop ${argv.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
    return profile;
  });
}

/**
 * A repository (no commit: `list` reads an unborn branch's worktree as git does) with a finished loop of 30
 * iterations; `versioned` false: in the seed's format. git runs without the user's or the system's config:
 * a template's hooks, a default branch or a signing rule of theirs must not change or stop the build.
 */
function loopRepo(repo: string, versioned: boolean): string {
  mkdirSync(join(repo, ".claude"), { recursive: true });
  const env = { ...scratchEnv(), GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  const r = Bun.spawnSync(["git", "init", "-q", "-b", "main"], { cwd: repo, env, stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git init ${repo}: ${r.stderr}`);
  const iterations = Array.from({ length: 30 }, (_, i) => sampleIteration(i + 1, { log_file: join(repo, `.claude/logs/iter-${i + 1}.jsonl`) }));
  const state: Partial<State> = sampleState({
    worktree_path: repo,
    worktree_name: "repo",
    tasks_file: join(repo, "tasks.md"),
    current_iteration: 30,
    iterations,
  });
  if (!versioned) delete state.schema_version;
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(state, null, 2));
  writeFileSync(join(repo, "tasks.md"), "## 1. Setup\n- [x] 1.1 Setup\n## 2. Second\n- [x] 2.1 Second\n");
  return repo;
}
