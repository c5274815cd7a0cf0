/**
 * Errors a user should see as a message, not a stack trace, and the exit codes in docs/commands.md.
 */

export const ExitCode = {
  done: 0,
  usage: 1,
  stuck: 2,
  stalled: 3,
  stopped: 4,
} as const;

/** A mistake or a situation the user can act on. Its message says what was wrong and what to do. */
export class UserError extends Error {
  override name = "UserError";
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.usage,
  ) {
    super(message);
  }
}

/**
 * A failure of wt-loop's own machinery (a git call of the harness, a loop file, a consumer of the
 * agent's output), not of the agent. It is never a reason to revert, clean or drop a checkpoint: the
 * loop ends (stuck, or stopped on a stop) and says where the user's work is.
 */
export class HarnessError extends Error {
  override name = "HarnessError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export const NOT_IN_WORKTREE = "Not inside a git worktree. Run from within a worktree directory.";
/** Said when the `git` a command needs to find its worktree is not on PATH. */
export const GIT_MISSING = "git is not installed (not found on PATH). Install git, then run this again.";

/** Exhaustiveness check for `switch` over discriminated unions: fails to compile when a case is missing. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}

const IO_HINTS: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EPERM: "operation not permitted (is the file or folder immutable, or owned by someone else?)",
  EACCES: "permission denied",
  EROFS: "the file system is read-only",
  EISDIR: "a folder is in the way of a file",
  ENOTDIR: "a file is in the way of a folder",
  EEXIST: "something else already exists there",
  ENOENT: "it does not exist",
  EIO: "an input/output error of the disk",
};

/** A file-system error (Node's SystemError: code, syscall, path) as a sentence a user can act on. */
export function describeIoError(err: unknown, op?: string, path?: string): string | null {
  const e = err as { code?: unknown; syscall?: unknown; path?: unknown } | null;
  if (!e || typeof e.code !== "string" || !/^E[A-Z]+$/.test(e.code)) return null;
  const what = op ?? (typeof e.syscall === "string" ? e.syscall : "use");
  const where = path ?? (typeof e.path === "string" ? e.path : "a file");
  return `wt-loop could not ${what} ${where}: ${e.code}, ${IO_HINTS[e.code] ?? (err as Error).message}.`;
}

/** Wraps a file operation of the loop so that its failure names the file and the operation. */
export async function io<T>(op: string, path: string, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const message = describeIoError(err, op, path);
    throw message ? new HarnessError(message, { cause: err }) : err;
  }
}

export function ioSync<T>(op: string, path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const message = describeIoError(err, op, path);
    throw message ? new HarnessError(message, { cause: err }) : err;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "A. B": `first`'s own full stop (if any) dropped, so a message that ends in one is not followed by "..". */
export const thenSentence = (first: string, next: string) => `${first.replace(/\.+$/, "")}. ${next}`;
