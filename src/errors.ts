/**
 * Errors a user should see as a message, not a stack trace, and the exit codes of SPEC §11.
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

/** Exhaustiveness check for `switch` over discriminated unions: fails to compile when a case is missing. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A warning on stderr: something the user should know that does not stop the command. */
export function warn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}
