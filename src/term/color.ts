/** Whether to colour output: a TTY, no NO_COLOR (https://no-color.org), not a dumb terminal. */
export function useColor(stream: { isTTY?: boolean } = process.stdout, env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
}

export const paint = (on: boolean, code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);

/**
 * Whether stdout is a terminal, and its width, without touching `process.stdout`: creating that
 * stream costs a few milliseconds of start-up (measured in the built binary), which the commands
 * that only print with console.log need not pay.
 */
export function stdoutInfo(): { isTTY: boolean; columns?: number } {
  const { isatty } = require("node:tty") as typeof import("node:tty");
  // A terminal may report 0 columns (a pty nobody sized): that is no width, not a width of 0.
  return isatty(1) ? { isTTY: true, columns: process.stdout.columns || undefined } : { isTTY: false };
}
