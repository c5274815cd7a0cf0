/** Runs wt-loop the way a user does: as a process, in a directory, with an environment. */
import { dirname, join, resolve } from "node:path";
import { tempDir } from "./repo.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const CLI = join(ROOT, "src/cli.ts");
export const FAKE_BIN = join(ROOT, "test/fixtures/bin");
export const NODE_BIN = join(ROOT, "node_modules/.bin");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** PATH with the fake agents (and optionally the real openspec CLI) first. */
export function testPath(opts: { openspec?: boolean } = {}): string {
  // `npm test` puts node_modules/.bin (and so the openspec CLI) on PATH; tests choose for themselves.
  const inherited = (process.env.PATH ?? "").split(":").filter((p) => p && !p.endsWith("node_modules/.bin"));
  return [FAKE_BIN, ...(opts.openspec ? [NODE_BIN] : []), dirname(process.execPath), ...inherited].join(":");
}

export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: testPath(),
    NO_COLOR: "1",
    OPENSPEC_TELEMETRY: "0",
    TMUX: undefined,
    TMUX_PANE: undefined,
    NODE_ENV: undefined,
    // The user's own ~/.config/wt-loop (config.json, trusted files) must not change what a test sees
    // (a test sets its own), and a loop's seal key is written there.
    XDG_CONFIG_HOME: testConfigHome(),
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

// One config folder per test file, never per process: bun runs every file in one process, and a
// config.json one file left (on-complete: keep) answered the end questions of later files' loops.
const configHomes = new Map<string, string>();
let currentFile = "";

/** From now on, `baseEnv` gives the config folder of test file `file` (test/preload.ts calls it for each file). */
export function useConfigHomeOf(file: string): void {
  currentFile = file;
}

/**
 * An empty config folder of the current test file's own. A temporary folder like any other (helpers/repo.ts
 * `tempDir`): removed when the file ends — a removal on process "exit" never ran under `bun test`, and CI left
 * hundreds. Made again if asked for after that.
 */
export function testConfigHome(): string {
  const { existsSync } = require("node:fs") as typeof import("node:fs");
  let home = configHomes.get(currentFile);
  if (!home || !existsSync(home)) {
    home = tempDir("wt-loop-xdg-");
    configHomes.set(currentFile, home);
  }
  return home;
}

type Io = "pipe" | "ignore";

/** Starts wt-loop in the background (for a test that acts while it runs); `wtLoop` waits for its end. */
export function spawnWtLoop<O extends Io = "pipe", E extends Io = "pipe">(
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; bin?: string; stdout?: O; stderr?: E },
) {
  const argv = opts.bin ? [opts.bin, ...args] : [process.execPath, CLI, ...args];
  return Bun.spawn(argv, {
    cwd: opts.cwd,
    env: baseEnv(opts.env),
    stdin: "ignore",
    stdout: opts.stdout ?? ("pipe" as O),
    stderr: opts.stderr ?? ("pipe" as E),
  });
}

/** Reads a stream as it comes: `text()` is what arrived so far (for `waitFor`), `done` all of it. */
export function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<string> } {
  let text = "";
  const decoder = new TextDecoder();
  const done = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
    return (text += decoder.decode());
  })();
  return { text: () => text, done };
}

export async function wtLoop(
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; bin?: string; timeoutMs?: number },
): Promise<CliResult> {
  const proc = spawnWtLoop(args, opts);
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Environment for a loop whose `claude` is the fake agent following `steps`. */
export function fakeAgent(steps: object[], dir: string): { env: Record<string, string>; dir: string } {
  const { writeFileSync, mkdirSync } = require("node:fs") as typeof import("node:fs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "script.json"), JSON.stringify(steps));
  return { env: { FAKE_AGENT_SCRIPT: join(dir, "script.json"), FAKE_AGENT_DIR: dir }, dir };
}

export function readJson<T = any>(path: string): T {
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  return JSON.parse(readFileSync(path, "utf8"));
}

export function readEvents(worktree: string): any[] {
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  return readFileSync(join(worktree, ".claude/loop-events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** Builds the binary as `bun run build` does, into a temporary folder; returns its path. */
export function buildBinary(dir: string): string {
  const bin = join(dir, "wt-loop");
  const r = Bun.spawnSync([process.execPath, "scripts/build.ts", bin], { cwd: ROOT, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`build failed: ${r.stderr}`);
  return bin;
}
