/**
 * Terminal titles (SPEC §8): OSC 0 only when stdout is a terminal; inside tmux the window is renamed
 * too, because OSC there only sets the pane title.
 */
import { start } from "../proc/spawn.ts";

export function osc0(title: string): string {
  // A control character inside the title would end the sequence early or start another.
  return `\x1b]0;${title.replace(/[\x00-\x1f\x7f]/g, " ")}\x07`;
}

export function setTitle(
  title: string,
  out: { isTTY?: boolean; write(s: string): unknown } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): void {
  if (out.isTTY) out.write(osc0(title));
  if (env.TMUX && env.TMUX_PANE) {
    try {
      start(["tmux", "rename-window", "-t", env.TMUX_PANE, title], { cwd: process.cwd(), timeoutMs: 5000 }).done.catch(() => {});
    } catch {
      // tmux not on PATH: the OSC title is all we can do.
    }
  }
}
