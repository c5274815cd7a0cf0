/**
 * The one way wt-loop starts a process: argv only (never a shell string), its own process group so
 * a timeout or a stop ends the whole tree (SIGTERM, then SIGKILL after a grace), a typed error
 * carrying the command, exit code and stderr.
 */
import { becomeSubreaper, endProcesses, findProcesses, RUN_TAG_VAR, spawnedLive, startTicks, type Target } from "./contain.ts";
import { signalQuietly } from "./signal.ts";
import { readLines, tailLines, type LongLines } from "./lines.ts";
import { closeSync, existsSync, writeSync } from "node:fs";
import { appendLogSafe } from "./safe-fs.ts";
import { hardenGit } from "./git-hardening.ts";
import { CommandError, type EndReason } from "./command-error.ts";

export const KILL_GRACE_MS = 2000;
/** After a command and all we could end of it are gone, how long its pipes may still bring its last output. */
const PIPE_DRAIN_MS = 1000;

export type { EndReason };

/** A consumer of a process's output (`onStdout`/`onStderr`) threw; the process was ended. */
export class ConsumerError extends Error {
  override name = "ConsumerError";
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

// In its own module, so that code which only tells it apart (the commands' error boundary) loads no spawning.
export { CommandError };

export interface SpawnOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Text written to stdin, then closed; omitted → stdin is /dev/null. */
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Leave the group alone when the leader exits (for launchers whose job is to leave something running). */
  keepGroup?: boolean;
}

export interface Running {
  pid: number;
  /** Resolves when the leader has exited and the rest of its group has been ended. */
  done: Promise<{ code: number; reason: EndReason }>;
  /** Ends the whole process group now (SIGTERM, SIGKILL after the grace). */
  kill(): void;
}

/** Spawns `argv` in its own process group; `onStdout`/`onStderr` receive lines as they arrive. */
export interface StartOptions extends SpawnOptions {
  onStdout?: (line: string) => void;
  onStderr?: (line: string) => void;
  /**
   * Send stdout/stderr straight to these files (the kernel writes them; nothing is held in our
   * memory) and feed `onStdout` by reading the stdout file as it grows.
   */
  stdoutFile?: string;
  stderrFile?: string;
  /**
   * An agent run: its processes are also found by this tag (in their environment as RUN_TAG_VAR,
   * which the caller sets) and as orphans reparented to us, and all are ended before `done`.
   */
  contain?: { tag: string };
  /** With `stdoutFile`: stdout lines longer than `limit` bytes go to this sink, never built as strings. */
  longLines?: LongLines;
  /** Runs the command inside this sandbox (proc/sandbox.ts). */
  sandbox?: Wrapper;
}

/** What runs a command inside a sandbox: its argv and environment as they are given to the sandbox. */
export interface Wrapper {
  /** `settle`: run once the command and everything it started are gone; its lines are added to the command's stderr. */
  wrap(
    argv: string[],
    cwd: string,
    env: Record<string, string | undefined>,
  ): { argv: string[]; env: Record<string, string | undefined>; settle?: () => string[] };
}

/** What runs now (and what is being ended): a process about to exit ends it all with SIGKILL. */
const running = new Set<Target>();

/**
 * SIGKILL to everything wt-loop started that is still there: for a process about to exit (a
 * force-quit, an uncaught error), whose wait for the grace would never finish, so that nothing it
 * started — a leftover that ignores SIGTERM, an agent's setsid grandchild — outlives it.
 */
export function killPendingGroups(): void {
  for (const t of running) for (const pid of findProcesses(t)) signalQuietly(pid, "SIGKILL");
  running.clear();
}
let exitHook = false;

/** Numbers the contained commands of this process: each has a tag of its own under its run's. */
let contained = 0;

export function start(given: string[], opts: StartOptions): Running {
  const [cmd] = given;
  // A contained command carries its own tag under the run's (`<run tag>#<pid>.<n>`): when it ends,
  // what it left behind is ended with it, and never another command of the same run — a --notify
  // command ending just as the next agent run starts ended that agent. The run's tag still finds them all.
  const tag = opts.contain ? `${opts.contain.tag}#${process.pid}.${++contained}` : undefined;
  const asked = tag ? { ...(opts.env ?? process.env), [RUN_TAG_VAR]: tag } : (opts.env ?? process.env);
  // wt-loop's own git (never an agent's or a command's: those are contained, or sandboxed) runs nothing
  // the agent could have planted, and finds its repository where it was at start (git-hardening.ts).
  const givenEnv = cmd === "git" && !opts.contain && !opts.sandbox ? hardenGit(asked, opts.cwd) : asked;
  const { argv, env, settle } = opts.sandbox ? opts.sandbox.wrap(given, opts.cwd, givenEnv) : { argv: given, env: givenEnv, settle: undefined };
  if (!cmd) throw new Error("empty argv");
  if (opts.signal?.aborted) throw new CommandError(`${cmd} was not started: stop requested`, argv, "aborted");
  let proc: Bun.Subprocess;
  // Opened here, never through a link (Bun.file would follow one an agent planted in the log folder).
  // Appending: the caller made the file fresh, and stdout and stderr may share it.
  const files: { stdout?: number; stderr?: number } = {};
  const closeFiles = () => {
    for (const fd of [files.stdout, files.stderr]) if (fd !== undefined) closeSync(fd);
  };
  try {
    if (opts.stdoutFile) files.stdout = appendLogSafe(opts.stdoutFile);
    if (opts.stderrFile) files.stderr = appendLogSafe(opts.stderrFile);
  } catch (err) {
    closeFiles();
    throw err;
  }
  try {
    proc = Bun.spawn(argv, {
      cwd: opts.cwd,
      env: cleanEnv(env),
      stdin: opts.input === undefined ? "ignore" : "pipe",
      stdout: files.stdout ?? "pipe",
      stderr: files.stderr ?? "pipe",
      detached: true, // setsid(): the child leads a new process group we can kill as a whole
    });
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") {
      // ENOENT is also a working folder that is gone (a lane's worktree removed under it): not a missing program.
      if (!existsSync(opts.cwd)) throw new CommandError(`${cmd} could not be started: its working folder ${opts.cwd} no longer exists`, argv, "no_folder");
      throw new CommandError(`${cmd} is not installed (not found on PATH)`, argv, "missing");
    }
    throw err;
  } finally {
    closeFiles(); // the child has its own copies
  }
  if (opts.input !== undefined) {
    const stdin = proc.stdin as Bun.FileSink;
    // A child that exits without reading its stdin makes the write fail with EPIPE; that is its business.
    Promise.resolve(stdin.write(opts.input))
      .then(
        () => stdin.end(),
        () => {},
      )
      .catch(() => {});
  }

  let reason: EndReason = "exit";
  spawnedLive.add(proc.pid);
  void proc.exited.then(() => spawnedLive.delete(proc.pid));
  // Everything of this run: its group, and with `contain` whatever carries its tag or was orphaned to us.
  // Its own tag is carried only by what it started: nothing older (read now, before Bun can reap it).
  const target: Target = { pgid: proc.pid, ...(tag ? { tag, orphans: becomeSubreaper(), bornSince: startTicks(proc.pid) } : {}) };
  if (!opts.keepGroup) running.add(target);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", killPendingGroups);
  }
  let ended: Promise<number[]> | undefined;
  // SIGTERM, SIGKILL after the grace to whatever is left, resolved only when nothing is left.
  const kill = () => {
    ended ??= endProcesses(target, KILL_GRACE_MS);
  };
  const timeout = opts.timeoutMs
    ? setTimeout(() => {
        reason = "timeout";
        kill();
      }, opts.timeoutMs)
    : undefined;
  const onAbort = () => {
    reason = "aborted";
    kill();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  // The leader's exit, then (unless the group is to be left) the end of all of it that we can find.
  // Whatever the leader left behind (a dev server, a sleeping grandchild) would keep our pipes open
  // and outlive the loop: end it all, and go on only once it is gone (a late write of a killed
  // attempt must not land in the revert or the next attempt).
  const settled = proc.exited.then(async (code) => {
    if (!opts.keepGroup) kill();
    await ended;
    // A sandbox's own cleanup (run/sandbox-git.ts: what the command left in a git dir that git never writes there).
    const said = settle?.() ?? [];
    if (said.length) {
      if (opts.stderrFile) {
        const fd = appendLogSafe(opts.stderrFile);
        try {
          writeSync(fd, said.map((l) => `${l}\n`).join(""));
        } finally {
          closeSync(fd);
        }
      } else for (const l of said) opts.onStderr?.(l);
    }
    return code;
  });
  // We wait for the command, not for its pipes: a process we could not find (a `setsid` grandchild of
  // an uncontained command, or anywhere without /proc) may hold them open for as long as it lives.
  // Unref'd: the timer alone must not keep a finished command line alive.
  const pipesDone = settled.then(() => new Promise((r) => setTimeout(r, PIPE_DRAIN_MS).unref()));
  const read = (stream: unknown, file: string | undefined, onLine?: (line: string) => void, longLines?: LongLines) =>
    file
      ? onLine
        ? tailLines(file, onLine, proc.exited, longLines)
        : Promise.resolve()
      : readLines(stream as ReadableStream<Uint8Array>, onLine ?? (() => {}), pipesDone);
  // A consumer of the output that throws (a parser, a renderer, the event log) is never swallowed:
  // the run is ended at once (nothing would read the rest) and `done` rejects with the consumer's error.
  let failure: { error: unknown } | undefined;
  const consume = (p: Promise<void>) =>
    p.catch((error: unknown) => {
      failure ??= { error };
      kill();
    });
  const reading = Promise.all([
    consume(read(proc.stdout, opts.stdoutFile, opts.onStdout, opts.longLines)),
    consume(read(proc.stderr, opts.stderrFile, opts.onStderr)),
  ]);
  const done = (async () => {
    const code = await settled;
    await reading;
    running.delete(target);
    clearTimeout(timeout);
    opts.signal?.removeEventListener("abort", onAbort);
    if (failure) throw new ConsumerError(failure.error);
    return { code, reason };
  })();
  return { pid: proc.pid, done, kill };
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs a short command to completion; a non-zero exit, a timeout or a stop throws CommandError. */
export async function exec(argv: string[], opts: SpawnOptions & Pick<StartOptions, "contain" | "sandbox"> & { allowFailure?: boolean }): Promise<ExecResult> {
  const out: string[] = [];
  const err: string[] = [];
  const run = start(argv, { ...opts, onStdout: (l) => out.push(l), onStderr: (l) => err.push(l) });
  const { code, reason } = await run.done;
  const stdout = out.join("\n");
  const stderr = err.join("\n");
  const shown = argv.slice(0, 3).join(" ");
  if (reason === "timeout") throw new CommandError(`\`${shown}\` timed out after ${Math.round((opts.timeoutMs ?? 0) / 1000)}s`, argv, "timeout", null, stderr);
  if (reason === "aborted") throw new CommandError(`\`${shown}\` was interrupted: stop requested`, argv, "aborted", null, stderr);
  if (code !== 0 && !opts.allowFailure)
    throw new CommandError(`\`${shown}\` failed (exit ${code})${stderr ? `: ${stderr.trim()}` : ""}`, argv, "exit", code, stderr);
  return { stdout, stderr, code };
}

function cleanEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
