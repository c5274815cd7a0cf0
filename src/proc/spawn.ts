/**
 * The one way wt-loop starts a process: argv only (never a shell string), its own process group so
 * a timeout or a stop ends the whole tree (SIGTERM, then SIGKILL after a grace), a typed error
 * carrying the command, exit code and stderr.
 */
import { readLines, tailLines } from "./lines.ts";

export const KILL_GRACE_MS = 2000;

export type EndReason = "exit" | "timeout" | "aborted";

export class CommandError extends Error {
  override name = "CommandError";
  constructor(
    message: string,
    readonly argv: string[],
    readonly reason: EndReason | "missing",
    readonly code: number | null = null,
    readonly stderr = "",
  ) {
    super(message);
  }
}

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

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
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
}

/** Groups sent SIGTERM whose SIGKILL fallback has not fired yet. */
const pendingKills = new Set<number>();

/**
 * Sends the pending SIGKILLs now: for a process about to exit, since an unref'd timer would not fire
 * and a leftover that ignores SIGTERM, no longer our descendant, would outlive us.
 */
export function killPendingGroups(): void {
  for (const pid of pendingKills) killGroup(pid, "SIGKILL");
  pendingKills.clear();
}

export function start(argv: string[], opts: StartOptions): Running {
  const [cmd] = argv;
  if (!cmd) throw new Error("empty argv");
  if (opts.signal?.aborted) throw new CommandError(`${cmd} was not started: stop requested`, argv, "aborted");
  let proc: Bun.Subprocess;
  try {
    proc = Bun.spawn(argv, {
      cwd: opts.cwd,
      env: cleanEnv(opts.env ?? process.env),
      stdin: opts.input === undefined ? "ignore" : "pipe",
      stdout: opts.stdoutFile ? Bun.file(opts.stdoutFile) : "pipe",
      stderr: opts.stderrFile ? Bun.file(opts.stderrFile) : "pipe",
      detached: true, // setsid(): the child leads a new process group we can kill as a whole
    });
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT")
      throw new CommandError(`${cmd} is not installed (not found on PATH)`, argv, "missing");
    throw err;
  }
  if (opts.input !== undefined) {
    const stdin = proc.stdin as Bun.FileSink;
    // A child that exits without reading its stdin makes the write fail with EPIPE; that is its business.
    Promise.resolve(stdin.write(opts.input)).then(() => stdin.end(), () => {}).catch(() => {});
  }

  let reason: EndReason = "exit";
  let killTimer: Timer | undefined;
  // The SIGKILL fallback is never cancelled: a member of the group that ignores SIGTERM must still
  // go, even after the leader has exited. Unref'd, so it never keeps wt-loop alive.
  const kill = () => {
    killGroup(proc.pid, "SIGTERM");
    pendingKills.add(proc.pid);
    killTimer ??= setTimeout(() => {
      pendingKills.delete(proc.pid);
      killGroup(proc.pid, "SIGKILL");
    }, KILL_GRACE_MS);
    killTimer.unref();
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

  const read = (stream: unknown, file: string | undefined, onLine?: (line: string) => void) =>
    file
      ? onLine
        ? tailLines(file, onLine, proc.exited)
        : Promise.resolve()
      : readLines(stream as ReadableStream<Uint8Array>, onLine ?? (() => {}));
  const reading = Promise.all([read(proc.stdout, opts.stdoutFile, opts.onStdout), read(proc.stderr, opts.stderrFile, opts.onStderr)]);
  const done = (async () => {
    const code = await proc.exited;
    // Whatever the leader left behind (a dev server, a sleeping grandchild) would keep our pipes open
    // and outlive the loop: end the group before waiting for the pipes to close.
    if (!opts.keepGroup) kill();
    await reading.catch(() => {});
    clearTimeout(timeout);
    opts.signal?.removeEventListener("abort", onAbort);
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
export async function exec(argv: string[], opts: SpawnOptions & { allowFailure?: boolean }): Promise<ExecResult> {
  const out: string[] = [];
  const err: string[] = [];
  const run = start(argv, { ...opts, onStdout: (l) => out.push(l), onStderr: (l) => err.push(l) });
  const { code, reason } = await run.done;
  const stdout = out.join("\n");
  const stderr = err.join("\n");
  const shown = argv.slice(0, 3).join(" ");
  if (reason === "timeout")
    throw new CommandError(`\`${shown}\` timed out after ${Math.round((opts.timeoutMs ?? 0) / 1000)}s`, argv, "timeout", null, stderr);
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
