// A sandboxed command has no controlling terminal: through one it could push keystrokes (TIOCSTI) into the
// terminal wt-loop runs in, for the shell that reads them after the loop. `script` gives the command a
// terminal as a user's would; the same command outside the sandbox opens it, inside it cannot.
import { afterEach, expect, test } from "bun:test";
import { openSandbox, type Sandbox } from "../../src/proc/sandbox.ts";
import { tempDir } from "../helpers/repo.ts";

let box: Sandbox | undefined;
afterEach(() => box?.close());

const PROBE = ["sh", "-c", "(exec 3</dev/tty) 2>/dev/null && echo HAS_TTY || echo NO_TTY"];
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function inTerminal(argv: string[], env: Record<string, string | undefined>, cwd: string): string {
  const r = Bun.spawnSync(["script", "-qec", argv.map(q).join(" "), "/dev/null"], { cwd, env: env as Record<string, string>, stdin: "ignore" });
  return r.stdout.toString().trim();
}

test("a command run in a terminal opens it outside the sandbox, and not inside it (either network)", async () => {
  const wt = tempDir("tty-");
  expect(inTerminal(PROBE, process.env, wt)).toBe("HAS_TTY");
  for (const network of ["open", "filtered"] as const) {
    box = await openSandbox({ write: [], readOnly: [], denyRead: [], network, allow: [], env: [] }, "a test");
    const w = box.wrap(PROBE, wt, process.env);
    expect(inTerminal(w.argv, w.env, wt)).toBe("NO_TTY");
    await box.close();
    box = undefined;
  }
});
