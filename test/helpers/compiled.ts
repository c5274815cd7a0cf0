/**
 * What the terminal tests share: the compiled binary alone in a folder (nothing beside it, so the
 * renderer's native library comes from inside it, as for a user), put first on the PATH of a fake
 * agent's environment, and a private tmux server per test. Registers the build (beforeAll) and the
 * server's end (afterEach) for the file that calls it.
 */
import { afterEach, beforeAll } from "bun:test";
import { buildBinary, fakeAgent, testPath } from "./cli.ts";
import { tempDir } from "./repo.ts";
import { Tmux } from "./tmux.ts";

export function compiledInTmux() {
  let dir = "";
  let bin = "";
  let server: Tmux | null = null;
  beforeAll(() => {
    dir = tempDir("wt-loop-bin-");
    bin = buildBinary(dir);
  }, 120_000);
  afterEach(() => server?.kill());
  return {
    /** The binary's path (once built). */
    bin: () => bin,
    /** A fresh tmux server for this test, ended after it. */
    tmux: (): Tmux => (server = new Tmux()),
    /** The environment of a fake agent playing `steps`, with the binary first on the PATH and a terminal that draws. */
    envFor(steps: object[], extra: Record<string, string> = {}): { env: Record<string, string>; dir: string } {
      const agent = fakeAgent(steps, tempDir("fake-agent-"));
      return { env: { ...agent.env, PATH: `${dir}:${testPath()}`, TERM: "xterm-256color", ...extra }, dir: agent.dir };
    },
  };
}
