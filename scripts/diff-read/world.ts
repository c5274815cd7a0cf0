/**
 * Lays a case out on disk — a real git repository (and its linked worktrees) with the case's files — and
 * the processes its states name: a live runner of the binary under test (`BUN_BE_BUN=1 <binary> run
 * <script>`: its executable, `run` as its first word and its folder make it ours, as src/proc/owned.ts
 * asks), a live process that is not ours, and a pid that is dead.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Case } from "./cases.ts";
import { PID } from "./our-state.ts";

export const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "d",
  GIT_AUTHOR_EMAIL: "d@d",
  GIT_COMMITTER_NAME: "d",
  GIT_COMMITTER_EMAIL: "d@d",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

export function git(cwd: string, ...args: string[]): void {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${r.stderr}`);
}

/** A process's start time as /proc/PID/stat's field 22 gives it (src/proc/procfs.ts reads the same). */
export function startedOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Processes to end however the checker ends (a Ctrl-C included): the live pids the states name. */
const alive = new Set<{ kill(sig?: number): void }>();
export function endAll(): void {
  for (const p of alive) p.kill(9);
  alive.clear();
}

/**
 * A process's start time as `ps` gives it where wt-loop tells processes with ps (WT_LOOP_PROC=ps,
 * src/proc/ps.ts): `lstart` in UTC and the C locale, its runs of spaces made one.
 */
export function psStartedOf(pid: number): string | null {
  const r = Bun.spawnSync(["ps", "-o", "lstart=", "-p", String(pid)], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C", TZ: "UTC0" },
    stdout: "pipe",
  });
  const text = r.stdout.toString().trim().replace(/\s+/g, " ");
  return text || null;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone already
  }
}

/** The pids shared by every case: one dead, one alive that is not wt-loop's. */
export interface Shared {
  dead: number;
  foreign: number;
  foreignStarted: string;
  foreignPsStarted: string;
  sleeper: string;
  stop(): void;
}

export function sharedProcesses(root: string): Shared {
  const foreign = Bun.spawn(["sleep", "86400"], { stdio: ["ignore", "ignore", "ignore"] });
  alive.add(foreign);
  const sleeper = join(root, "runner-sleeps.js");
  writeFileSync(sleeper, "setTimeout(() => {}, 86_400_000);\n");
  return {
    // Above any pid Linux gives (PID_MAX_LIMIT, 2^22): never alive. The pid of a process that ended was
    // given again minutes later (seed 6: a dead runner read as a live foreign one, in one run of twenty).
    dead: 2 ** 22 + 4321,
    foreign: foreign.pid,
    foreignStarted: startedOf(foreign.pid) ?? "0",
    foreignPsStarted: psStartedOf(foreign.pid) ?? "0",
    sleeper,
    stop: () => (foreign.kill(9), alive.delete(foreign)),
  };
}

/** A live runner of `bin` in `worktree`, as the state of an `own` case names it. */
export async function startRunner(bin: string, worktree: string, sleeper: string, ps: boolean): Promise<{ pid: number; started: string; stop(): void }> {
  // A group of its own, ended whole: a wrapper script's runner is a shell whose child would outlive it.
  const p = Bun.spawn([bin, "run", sleeper], {
    cwd: worktree,
    env: { ...process.env, BUN_BE_BUN: "1" },
    stdio: ["ignore", "ignore", "ignore"],
    detached: true,
  });
  const group = { kill: () => killGroup(p.pid) };
  alive.add(group);
  // Ours once it is the binary itself (exec done) and its start time is readable.
  for (let i = 0; i < 200; i++) {
    const started = ps ? psStartedOf(p.pid) : startedOf(p.pid);
    if (started && readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0").includes(sleeper))
      return { pid: p.pid, started, stop: () => (group.kill(), alive.delete(group)) };
    await Bun.sleep(10);
  }
  group.kill();
  alive.delete(group);
  throw new Error(`the runner of ${bin} did not start`);
}

export interface Laid {
  /** The case's folder (kept when it shows a difference). */
  home: string;
  /** The worktree the commands act on. */
  worktree: string;
  /** The folder they run in (the worktree's top, or where the case says). */
  cwd: string;
  /** Every worktree with the `.claude` files laid anew before each run. */
  trees: { path: string; files: Record<string, string>; links: Record<string, string> }[];
}

export function layOut(root: string, c: Case): Laid {
  const home = join(root, c.name);
  const worktree = join(home, c.dir);
  mkdirSync(worktree, { recursive: true });
  if (!c.bare) {
    git(worktree, "init", "-q", "-b", "main");
    writeFileSync(join(worktree, "README.md"), "a repository\n");
    mkdirSync(join(worktree, "src"));
    writeFileSync(join(worktree, "src/.keep"), "");
    git(worktree, "add", "-A");
    git(worktree, "commit", "-q", "-m", "base");
    for (const [key, value] of c.gitConfig ?? []) git(worktree, "config", key!, value!.replaceAll("__WT__", worktree));
  }
  const trees: Laid["trees"] = [{ path: worktree, files: c.files, links: c.links ?? {} }];
  for (const l of c.linked) {
    const path = join(home, l.name);
    git(worktree, "worktree", "add", "-q", "-b", `b-${trees.length}`, path);
    trees.push({ path, files: l.files, links: {} });
  }
  for (const t of trees) for (const [rel, text] of Object.entries(t.files)) if (!isLoopFile(rel)) write(join(t.path, rel), fill(text, t.path, null, null));
  return { home, worktree, cwd: c.at ? join(worktree, c.at) : worktree, trees };
}

const isLoopFile = (rel: string) => rel === ".claude" || rel.startsWith(".claude/");
function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The pids a state names, as the run in hand has them. */
export interface Pids {
  shared: Shared;
  own: { pid: number; started: string } | null;
  /** The start times in `ps`'s form (WT_LOOP_PROC=ps), not /proc's. */
  ps: boolean;
}

const inJson = (s: string) => JSON.stringify(s).slice(1, -1);

/** A case's text with its placeholders filled: paths JSON-escaped (they stand in JSON strings), pids as numbers. */
export function fill(text: string, worktree: string, name: string | null, pids: Pids | null): string {
  let out = text.replaceAll("__WT_NAME__", inJson(name ?? worktree.split("/").at(-1)!)).replaceAll("__WT__", inJson(worktree));
  if (!pids) return out;
  const own = pids.own ?? { pid: pids.shared.dead, started: "1" };
  out = out
    .replaceAll(`"${PID.own}"`, String(own.pid))
    .replaceAll(PID.ownStarted, own.started)
    .replaceAll(`"${PID.dead}"`, String(pids.shared.dead))
    .replaceAll(`"${PID.foreign}"`, String(pids.shared.foreign))
    .replaceAll(PID.foreignStarted, pids.ps ? pids.shared.foreignPsStarted : pids.shared.foreignStarted);
  return out;
}

/** Lays every worktree's `.claude` anew: a command may have corrected a state (or left a file) in the last run. */
export function reset(laid: Laid, pids: Pids): void {
  for (const t of laid.trees) {
    const dir = join(t.path, ".claude");
    rmSync(dir, { recursive: true, force: true });
    for (const [rel, text] of Object.entries(t.files)) if (isLoopFile(rel)) write(join(t.path, rel), fill(text, t.path, null, pids));
    for (const [rel, target] of Object.entries(t.links)) {
      rmSync(join(t.path, rel), { force: true });
      mkdirSync(dirname(join(t.path, rel)), { recursive: true });
      symlinkSync(target, join(t.path, rel));
    }
  }
}

/** Every file under the worktrees' `.claude` after a run, path and text: what a command changed shows here. */
export function snapshot(laid: Laid): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p);
      else out.push(`== ${relative(laid.home, p)}\n${st ? readFileSync(p, "utf8") : "(dangling link)"}`);
    }
  };
  for (const t of laid.trees) walk(join(t.path, ".claude"));
  return out.join("\n");
}
