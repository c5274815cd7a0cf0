/**
 * What a `--parallel` lane costs (BENCH_ONLY=lanes): opening and closing one lane (`gitLanes`) in a
 * repository of 10,000 files, beside the floor — a raw `git worktree add -b` + `git worktree remove` +
 * `git branch -D` of the same commit from a shell; and the merge queue's integration of a small lane (one
 * file changed, two commits) with no verify. Runs interleaved, medians of BENCH_LANE_RUNS (default 7).
 * Beside the wall times, CPU times (of the process and all it waited for) of the same steps run as child
 * processes: on a machine others load, wall time grows with their work, CPU time barely does. The lane's
 * child is charged without Bun's start-up (a child that loads the same modules and does nothing).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { gitLanes } from "../../src/parallel/lanes.ts";
import { mergeQueue } from "../../src/parallel/merge-queue.ts";
import { git, makeRepo, measure, median, ms, removeRepo, runAlone, work } from "./shared.ts";

const FILES = Number(process.env.BENCH_LANE_FILES ?? 10_000);
const LANE_RUNS = Number(process.env.BENCH_LANE_RUNS ?? 7);

export interface LaneFigures {
  files: number;
  runs: number;
  raw_add_remove_ms: number;
  lane_open_close_ms: number;
  lane_added_ms: number;
  raw_cpu_ms: number;
  lane_cpu_ms: number;
  lane_commit_ms: number;
  integrate_small_ms: number;
}

const timed = async (fn: () => unknown): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

export async function laneCosts(): Promise<LaneFigures> {
  const repo = makeRepo("lanes", FILES, 1);
  try {
    git(repo, "switch", "-q", "-c", "ralph/x");
    const g = new Git({ cwd: repo, timeoutMs: 120_000 });
    const lanes = gitLanes(g, { commonDir: await g.commonDir(), loopBranch: "ralph/x" });
    const queue = mergeQueue(g, "ralph/x");
    const raw: number[] = [],
      lane: number[] = [],
      commit: number[] = [],
      integrate: number[] = [],
      rawCpu: number[] = [],
      laneCpu: number[] = [];
    const shell = (...args: string[]) => git(repo, ...args);
    for (let i = 0; i < LANE_RUNS; i++) {
      const rawRun = () =>
        timed(() => {
          const dir = join(work, `raw-${i}`);
          shell("worktree", "add", "-q", "-b", `raw-${i}`, dir, "HEAD");
          shell("worktree", "remove", "--force", dir);
          shell("branch", "-q", "-D", `raw-${i}`);
        });
      const laneRun = async () => {
        const p = lanes.plan(`bench${i}`, 1, await queue.head());
        return timed(async () => {
          await lanes.open(p);
          await lanes.close(p, { integrated: true });
        });
      };
      // Alternate which goes first: the page cache and a loaded machine favour neither.
      if (i % 2) raw.push(await rawRun()), lane.push(await laneRun());
      else lane.push(await laneRun()), raw.push(await rawRun());
      const dir = join(work, `rawcpu-${i}`);
      rawCpu.push(
        measure(["sh", "-c", `git worktree add -q -b rawcpu-${i} "${dir}" HEAD && git worktree remove --force "${dir}" && git branch -q -D rawcpu-${i}`], repo)
          .cpuMs,
      );
      laneCpu.push(measure(["bun", import.meta.path, "--lane", repo, `cpu${i}`], repo).cpuMs - measure(["bun", import.meta.path, "--floor", repo], repo).cpuMs);
      // A small lane integrated: an agent's commit, the checkpoint of one more file, the queue.
      const p = lanes.plan(`small${i}`, 1, await queue.head());
      await lanes.open(p);
      writeFileSync(join(p.worktree, `agent-${i}.ts`), `export const a${i} = ${i};\n`);
      git(p.worktree, "add", "-A");
      git(p.worktree, "commit", "-q", "-m", `agent ${i}`);
      writeFileSync(join(p.worktree, `checkpoint-${i}.ts`), `export const c${i} = ${i};\n`);
      commit.push(await timed(() => lanes.commit(p, `story small${i}`)));
      integrate.push(
        await timed(async () => {
          const r = await queue.integrate(p, null);
          if (r.kind !== "integrated") throw new Error(`bench lane not integrated: ${JSON.stringify(r)}`);
        }),
      );
      await lanes.close(p, { integrated: true });
    }
    const r = median(raw),
      l = median(lane);
    return {
      files: FILES,
      runs: LANE_RUNS,
      raw_add_remove_ms: r,
      lane_open_close_ms: l,
      lane_added_ms: l - r,
      raw_cpu_ms: median(rawCpu),
      lane_cpu_ms: median(laneCpu),
      lane_commit_ms: median(commit),
      integrate_small_ms: median(integrate),
    };
  } finally {
    removeRepo(repo);
  }
}

export function printLanes(f: LaneFigures): LaneFigures {
  console.log(`Lanes (--parallel) at ${f.files.toLocaleString("en")} files, median of ${f.runs}`);
  console.log(`  raw git worktree add -b + remove + branch -D   ${ms(f.raw_add_remove_ms)}`);
  console.log(`  lane open + close (gitLanes)                   ${ms(f.lane_open_close_ms)}   (+${ms(f.lane_added_ms)} over raw)`);
  console.log(`  CPU: raw ${ms(f.raw_cpu_ms)}, lane ${ms(f.lane_cpu_ms)} (+${ms(f.lane_cpu_ms - f.raw_cpu_ms)})`);
  console.log(`  lane commit (checkpoint of 1 file)             ${ms(f.lane_commit_ms)}`);
  console.log(`  integrate a small lane (2 commits, no verify)  ${ms(f.integrate_small_ms)}`);
  return f;
}

/** The child a CPU figure is taken of: one lane opened and closed (`--lane`), or only the modules loaded (`--floor`). */
async function child(mode: string, repo: string, id: string): Promise<void> {
  const g = new Git({ cwd: repo, timeoutMs: 120_000 });
  const lanes = gitLanes(g, { commonDir: await g.commonDir(), loopBranch: "ralph/x" });
  const head = await mergeQueue(g, "ralph/x").head();
  if (mode !== "--lane") return;
  const p = lanes.plan(id, 1, head);
  await lanes.open(p);
  await lanes.close(p, { integrated: true });
}

if (import.meta.main) {
  const [mode, repo, id] = process.argv.slice(2);
  if (mode) await child(mode, repo!, id ?? "x");
  else await runAlone(async () => printLanes(await laneCosts()));
}
