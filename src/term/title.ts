/**
 * Terminal titles (docs/terminals-and-notifications.md): OSC 0 only when stdout is a terminal; inside tmux the window is renamed
 * too, because OSC there only sets the pane title.
 */
import { start } from "../proc/spawn.ts";
import { inertLine } from "./inert.ts";
import { tmuxLiteral } from "./window.ts";

export function osc0(title: string): string {
  // A control character inside the title (ESC, BEL, C1's ST) would end the sequence early or start another.
  return `\x1b]0;${inertLine(title)}\x07`;
}

export function setTitle(
  title: string,
  out: { isTTY?: boolean; write(s: string): unknown } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): void {
  if (out.isTTY) out.write(osc0(title));
  // rename-window expands tmux formats in the name (`#(…)` would run a command from a story title).
  if (env.TMUX && env.TMUX_PANE) tmuxInOrder(["rename-window", "-t", env.TMUX_PANE, tmuxLiteral(inertLine(title))]);
}

// tmux calls run one after another: a rename that landed after the restore below would turn the
// window's automatic naming off again.
let tmuxQueue: Promise<unknown> = Promise.resolve();
function tmuxInOrder(args: string[]): Promise<unknown> {
  tmuxQueue = tmuxQueue.then(() => {
    try {
      return start(["tmux", ...args], { cwd: process.cwd(), timeoutMs: 5000 }).done.catch(() => {});
    } catch {
      return; // tmux not on PATH: the OSC title is all we can do.
    }
  });
  return tmuxQueue;
}

/**
 * Gives the tmux window's name back to tmux (`rename-window` turned its automatic naming off), so a
 * window the loop ran in, or the shell the user keeps using in it, is not left named "Ralph: … [done]".
 */
export async function restoreWindowName(env: Record<string, string | undefined> = process.env): Promise<void> {
  if (env.TMUX && env.TMUX_PANE) await tmuxInOrder(["set-option", "-w", "-t", env.TMUX_PANE, "automatic-rename", "on"]);
}
