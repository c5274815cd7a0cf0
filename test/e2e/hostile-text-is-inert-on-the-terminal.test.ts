// An agent (or a tasks file) that prints terminal escapes must not reach the user's terminal: no
// clipboard write (OSC 52), no window rename (OSC 0), no cleared screen (CSI 2J), no planted link
// (OSC 8), no 8-bit CSI (0x9b) — in the loop's own stream, its window title, and every command that
// shows the loop afterwards. The logs keep the raw bytes: they are the record of what happened.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, fakeAgent, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

const ESC = "\x1b";
const BEL = "\x07";
const HOSTILE = {
  clipboard: `${ESC}]52;c;cm0gLXJmIH4=${BEL}`,
  rename: `${ESC}]0;PWNED${BEL}`,
  clear: `${ESC}[2J`,
  link: `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`,
  c1: "\u009b31mC1",
  overwrite: "benign\rEVIL",
};
/** What must never reach a terminal (each as a byte sequence that does something). */
const FORBIDDEN = [`${ESC}]52`, `${ESC}]0;PWNED`, `${ESC}[2J`, `${ESC}]8;`, "\u009b", "\rEVIL"];

function expectInert(what: string, text: string): void {
  for (const f of FORBIDDEN)
    if (text.includes(f)) throw new Error(`${what} wrote ${JSON.stringify(f)} to the terminal: ${JSON.stringify(text.slice(0, 2000))}`);
}

/** Runs wt-loop with a terminal on stdout (script(1) gives it a pty) and returns the raw bytes it wrote. */
async function onATerminal(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const line = [process.execPath, join(import.meta.dir, "../../src/cli.ts"), ...args].map(q).join(" ");
  // Colour on (no NO_COLOR): the tool's own escapes still pass, only the hostile ones must not.
  const proc = Bun.spawn(["script", "-qfec", line, "/dev/null"], {
    cwd,
    env: baseEnv({ ...env, NO_COLOR: undefined, TERM: "xterm-256color" }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, , code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0 && code !== 2) throw new Error(`wt-loop ${args.join(" ")} exited ${code}: ${out}`);
  return out;
}

describe("hostile text from the agent and the tasks file is inert on the terminal", () => {
  test("run's stream and title, monitor, log, history, status and list show it made visible; the logs keep it raw", async () => {
    const repo = makeRepo({ "tasks.md": `# Tasks\n\n## 1. Evil ${HOSTILE.rename} title\n- [ ] 1.1 Make a\n` });
    const agent = fakeAgent(
      [
        { promise: `FAILED: broke ${HOSTILE.clear}${HOSTILE.clipboard} it`, messages: [`first try ${HOSTILE.c1}`] },
        { tick: "story", promise: "COMPLETE", messages: Object.values(HOSTILE).map((h, i) => `message ${i}: ${h} end`) },
      ],
      tempDir("fake-agent-"),
    );
    const env = agent.env;

    const run = await onATerminal(["start", "--terminal", "inline", "--plain", "--on-complete", "keep"], repo, env);
    expect(run).toContain("message 0:"); // the messages were shown…
    expect(run).toContain("^[]52;c;"); // …with their escapes made visible
    expect(run).toContain(`${ESC}]0;Ralph:`); // the tool's own title is still set
    expectInert("start --terminal inline", run);
    // The title the tool sets: one OSC 0 whose text holds no control character of the tasks file.
    for (const m of run.matchAll(/\x1b\]0;([^\x07]*)\x07/g)) expect(m[1]).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);

    for (const args of [["monitor", "--plain"], ["log"], ["history"], ["status"], ["list"], ["log", "--iteration", "1"]]) {
      const piped = await wtLoop(args, { cwd: repo });
      expect(piped.code).toBe(0);
      expectInert(`${args.join(" ")} (piped)`, piped.stdout + piped.stderr);
      expectInert(`${args.join(" ")} (terminal)`, await onATerminal(args, repo, env));
    }
    const log = await wtLoop(["log"], { cwd: repo });
    expect(log.stdout).toContain("^[[2J");
    expect(log.stdout).toContain("^[]0;PWNED^G");
    const history = await wtLoop(["history"], { cwd: repo });
    expect(history.stdout).toContain("broke ^[[2J^[]52;c;");

    // The agent's raw output in .claude/logs keeps every byte (as the agent's JSON carried it).
    const logs = join(repo, ".claude/logs");
    const raw = readdirSync(logs, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => readFileSync(join(logs, f), "utf8"))
      .join("\n");
    const texts = raw
      .split("\n")
      .flatMap((l) => {
        try {
          return [JSON.stringify(JSON.parse(l))];
        } catch {
          return [];
        }
      })
      .join("\n");
    expect(texts).toContain(JSON.stringify(HOSTILE.clipboard).slice(1, -1));
    expect(texts).toContain(JSON.stringify(HOSTILE.c1).slice(1, -1));
  }, 180_000);
});
