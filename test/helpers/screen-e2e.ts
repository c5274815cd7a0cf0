/**
 * What the loop screen's second-pass e2e tests share: wt-loop from source (`bun src/cli.ts`) in a
 * private tmux server, a fake agent's environment, and waits that print the screen when they fail.
 */
import { expect } from "bun:test";
import { CLI, fakeAgent, testPath } from "./cli.ts";
import { tempDir } from "./repo.ts";
import type { Tmux } from "./tmux.ts";

export const WT_LOOP = `"${process.execPath}" "${CLI}"`;
/** The shell line: the exit code printed, then the pane stays so the terminal can be read. */
export const keep = (cmd: string) => `${cmd}; echo "EXIT=$?"; sleep 60`;
export const flag = (t: Tmux, pane: string, f: string) => t.tmux("display", "-p", "-t", pane, `#{${f}}`).trim();
export const exited = (t: Tmux, pane: string) => t.waitFor("the exit code", () => /EXIT=(\d+)/.exec(t.capture(pane))?.[1], 60_000).then(Number);
/** Waits until the pane shows `what`; on a timeout the error carries the screen. */
export const shows = (t: Tmux, pane: string, what: string | RegExp | ((screen: string) => boolean), timeoutMs = 60_000) =>
  t
    .waitFor(
      `the screen to show ${what}`,
      () => {
        const s = t.capture(pane);
        return typeof what === "string" ? s.includes(what) : what instanceof RegExp ? what.test(s) : what(s);
      },
      timeoutMs,
    )
    .catch((e) => {
      throw new Error(`${(e as Error).message}\nThe screen:\n${t.capture(pane).replace(/ +\n/g, "\n")}`);
    });
export const restored = (t: Tmux, pane: string) => {
  expect(flag(t, pane, "alternate_on")).toBe("0");
  expect(flag(t, pane, "cursor_flag")).toBe("1");
};

/** A fake agent playing `steps` on a terminal that draws, wt-loop from source on the PATH's side. */
export function agentEnv(steps: object[], extra: Record<string, string> = {}): { env: Record<string, string>; dir: string } {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  return { env: { ...agent.env, PATH: testPath(), TERM: "xterm-256color", ...extra }, dir: agent.dir };
}
