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
  // A terminal may report 0 columns (a pty nobody sized): that is no width, not a width of 0.
  return isTerminal(1) ? { isTTY: true, columns: process.stdout.columns || undefined } : { isTTY: false };
}

type TtyBinding = { isTTY?: (fd: number) => boolean };

/**
 * isatty(fd). Loading node:tty for it costs more than `status` does all else (it brings the stream
 * modules: 4–15 ms measured in the built binary on the loaded 2-core machine), so the runtime's own
 * binding answers; node:tty only where that binding is missing.
 */
function isTerminal(fd: number): boolean {
  try {
    const binding = (process as unknown as { binding(name: string): TtyBinding }).binding("tty_wrap");
    if (typeof binding.isTTY === "function") return binding.isTTY(fd);
  } catch {
    // not provided by this runtime
  }
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}
