/**
 * A private tmux server for terminal tests (`tmux -L <name>`): real terminals, real keys. Only that
 * server is ever killed, by its own socket.
 */
import { describe, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testConfigHome } from "./cli.ts";
import { tempDir } from "./repo.ts";
import { waitFor } from "./wait.ts";

export const HAS_TMUX = Bun.which("tmux") !== null;
export const TMUX_MISSING =
  "tmux is not installed, and the terminal tests drive real terminals through it: install it (apt-get install tmux, or brew install tmux) and run npm test again.";

// One failing test for the whole run (bun test runs every file in one process), not one per test.
let missingReported = false;
function reportMissingTmux(): void {
  if (missingReported) return;
  missingReported = true;
  test("tmux is installed (the terminal tests need it)", () => {
    throw new Error(TMUX_MISSING);
  });
}

/** describe() for tests that need tmux; without tmux, the one clear failure above instead. */
export function describeWithTmux(name: string, body: () => void): void {
  if (HAS_TMUX) describe(name, body);
  else reportMissingTmux();
}

/** test() for one test that needs tmux, likewise. */
export function testWithTmux(name: string, body: () => Promise<void>, timeoutMs?: number): void {
  if (HAS_TMUX) test(name, body, timeoutMs);
  else reportMissingTmux();
}

export class Tmux {
  readonly sock = `wtl-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private dir = tempDir("tmux-");

  tmux(...args: string[]): string {
    const r = Bun.spawnSync(["tmux", "-L", this.sock, "-f", "/dev/null", ...args], { stderr: "pipe", env: { ...process.env, TMUX: undefined } });
    if (r.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  }

  private watcher: Bun.Subprocess | null = null;

  /**
   * Starts the server with one window running `cmd` (a shell line) in `cwd` with `env`; returns its
   * pane id. A person watches it (a client is attached, as when you run wt-loop in tmux) unless
   * `watched` is false: then nobody is attached, as in the detached session `start` opens without a display.
   */
  start(cwd: string, env: Record<string, string>, cmd: string, o: { watched?: boolean } = {}): string {
    const pane = this.tmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-x", "200", "-y", "50", "-c", cwd, this.script(env, cmd)).trim();
    // Keep dead panes so their last title and exit status can be read.
    this.tmux("set-option", "-g", "remain-on-exit", "on");
    if (o.watched !== false) this.attach(pane);
    return pane;
  }

  /**
   * Attaches a client to the session of `pane`: a control-mode client (no terminal needed) that
   * neither sizes the windows nor receives their output — to tmux, and to wt-loop asking it, a person.
   */
  attach(pane: string): void {
    const session = this.tmux("display-message", "-p", "-t", pane, "#{session_name}").trim();
    this.watcher = Bun.spawn(["tmux", "-L", this.sock, "-f", "/dev/null", "-C", "attach-session", "-t", `=${session}`, "-f", "ignore-size,no-output"], {
      stdin: "pipe", // held open: the client stays attached until it is detached or the server ends
      stdout: "ignore",
      stderr: "ignore",
      env: { ...process.env, TMUX: undefined },
    });
    for (let i = 0; i < 250 && !this.attached(pane); i++) Bun.sleepSync(20);
    if (!this.attached(pane)) throw new Error(`a client could not be attached to tmux session ${session}`);
  }

  /** Detaches every client from the session of `pane`: nobody is attached from now on. */
  detach(pane: string): void {
    const session = this.tmux("display-message", "-p", "-t", pane, "#{session_name}").trim();
    this.tmux("detach-client", "-s", `=${session}`);
    this.watcher = null;
  }

  /** Whether a client is attached to the session of `pane`. */
  attached(pane: string): boolean {
    return Number(this.tmux("display-message", "-p", "-t", pane, "#{session_attached}").trim()) > 0;
  }

  window(cwd: string, env: Record<string, string>, cmd: string): string {
    return this.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", cwd, this.script(env, cmd)).trim();
  }

  private n = 0;
  private script(env: Record<string, string>, cmd: string): string {
    const file = join(this.dir, `cmd-${++this.n}.sh`);
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    // The exit status goes to a file: a tmux server started from a test process does not always
    // reap its panes' processes, so #{pane_dead_status} cannot be relied on.
    // The test file's own config folder unless `env` names one: never the user's, never another file's.
    const all = { XDG_CONFIG_HOME: testConfigHome(), ...env };
    const lines = [
      ...Object.entries(all).map(([k, v]) => `export ${k}=${q(v)}`),
      "unset NO_COLOR",
      cmd,
      `code=$?`,
      `stty -a > ${file}.stty 2>&1`,
      `echo $code > ${file}.exit`,
      "",
    ];
    writeFileSync(file, lines.join("\n"));
    return `sh ${file}`;
  }

  /** The terminal's settings right after the command exited (`stty -a`): was raw mode restored? */
  sttyAfter(pane: string): string {
    return readFileSync(`${this.scriptOf(pane)}.stty`, "utf8");
  }

  /** The script a pane was started with (its side files sit next to it). */
  private scriptOf(pane: string): string {
    const p = this.panes().find((x) => x.id === pane);
    return /sh ([^\s"]+)/.exec(p?.cmd ?? "")?.[1] ?? "";
  }

  /** Whether the command started in `pane` has exited (now, without waiting). */
  hasExited(pane: string): boolean {
    return existsSync(`${this.scriptOf(pane)}.exit`);
  }

  /** Waits until the command started in `pane` has exited; returns its exit code. */
  async exitCode(pane: string, timeoutMs = 30_000): Promise<number> {
    const file = `${this.scriptOf(pane)}.exit`;
    const text = await this.waitFor(`the command in ${pane} to exit`, () => existsSync(file) && readFileSync(file, "utf8").trim(), timeoutMs);
    return Number(text);
  }

  panes(): { id: string; title: string; window: string; cmd: string }[] {
    return this.tmux("list-panes", "-a", "-F", "#{pane_id}\t#{pane_title}\t#{window_name}\t#{pane_start_command}")
      .trim()
      .split("\n")
      .map((l) => {
        const [id, title, window, cmd] = l.split("\t");
        return { id: id!, title: title!, window: window!, cmd: cmd! };
      });
  }

  capture(pane: string): string {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", pane);
  }

  keys(pane: string, ...keys: string[]): void {
    this.tmux("send-keys", "-t", pane, ...keys);
  }

  /** `waitFor` that also says, when it times out, what every pane showed in its title. */
  async waitFor<T>(what: string, probe: () => T | undefined | null | false | 0 | "", timeoutMs = 30_000): Promise<T> {
    return waitFor(what, probe, timeoutMs, { every: 100 }).catch((e) => {
      throw new Error(`${(e as Error).message}; panes: ${JSON.stringify(this.panes())}`);
    });
  }

  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
    this.watcher?.kill(); // ends with its server; ended here in case the server was already gone
    this.watcher = null;
  }
}
