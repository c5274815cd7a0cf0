/**
 * `--sandbox`: the agent, `--verify` and `--notify` run under bubblewrap. The whole file system is
 * mounted read-only; the machine's temp and runtime folders (where sockets live: tmux's, an SSH
 * agent's, D-Bus, docker, other loops' forwards) are replaced by empty ones, /tmp by the loop's own
 * private folder; then the folders the command may change are bound writable again (the agent's own
 * state, and the worktree it runs in with the parts of its git dirs a commit writes: run/sandbox-git.ts),
 * then what stays read-only inside those, then what must not be read at all (credentials: an empty
 * folder or file in their place), and every unix socket still visible is covered. Only an allow-list
 * of environment variables goes in, and no capability, whoever runs it (root too).
 *
 * With the network filtered there are two namespaces, one inside the other: the outer one (root in
 * a user namespace of its own, so it may listen on ports below 1024) starts the forwards of
 * sandbox-net.ts and nothing else; the inner one runs the command as the user again, with no
 * capability at all. Without filtering, one bubblewrap with the host's network.
 */
import { realOrSame } from "./real-path.ts";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { hostsFile, insideScript, planForwards, startForwards, stopForwards, type Endpoint, type Forward } from "./sandbox-net.ts";
import type { Running } from "./spawn.ts";
import { existsHere } from "./safe-fs.ts";
import { programFolders } from "./sandbox-program.ts";
import { makeSandboxDir } from "./sandbox-dir.ts";
import { UserError } from "../errors.ts";

export type SandboxNetwork = "filtered" | "open";

/** One mount of a worktree's rules, applied in order: `rw` binds a folder writable, `ro` read-only. */
export type Mount = ["rw" | "ro", string];

/** The worktree a command runs in: its mounts (the folder, its git dirs), and what to undo after the command. */
export interface Place {
  mounts: Mount[];
  /** Run once the command and all its processes are gone: removes what it may not leave; says what it removed. */
  settle?(): string[];
}

export interface SandboxRules {
  /** Folders (and files) the command may change. A missing folder is made first; a missing file (a name ending in `.json`) is left out. */
  write: string[];
  /** Inside those, paths that stay read-only. */
  readOnly: string[];
  /** Paths that cannot be read (hidden behind an empty folder or file). */
  denyRead: string[];
  network: SandboxNetwork;
  /** With `filtered`: the only hosts reachable. */
  allow: Endpoint[];
  /** More environment variables passed in besides BASE_ENV: names, or prefixes written `NAME_*`. */
  env: string[];
  /** The rules of the worktree a command runs in, asked for each command by its folder (a lane's differ from the loop's). */
  place?(cwd: string): Place;
}

/** Credentials no agent needs: never readable inside, whatever the configuration says. */
export const DENIED_HOME = [".ssh", ".aws", ".gnupg", ".config/gh", ".netrc"];

/**
 * The environment every sandboxed command gets (if set): what a program needs to run and to print, and
 * wt-loop's own variables (the run's tag, `--notify`'s WT_LOOP_STATUS…). Paths, never secrets: the rest
 * (tokens, TMUX, SSH_AUTH_SOCK, DBUS_*, a proxy with its password) stays out unless named.
 */
export const BASE_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "TZ",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "WT_LOOP_*",
  "OPENSPEC_TELEMETRY",
];

/** Never passed in, whatever names them: each leads to a program outside (a terminal multiplexer, a key agent, a bus, a display). */
export const NEVER_ENV = /^(TMUX|TMUX_PANE|STY|SSH_AUTH_SOCK|SSH_AGENT_PID|GPG_AGENT_INFO|DBUS_.*|DISPLAY|WAYLAND_DISPLAY|XAUTHORITY|DOCKER_HOST)$/;

/** The variables of `env` that `names` (names, or `PREFIX_*`) let in. */
export function allowedEnv(env: Record<string, string | undefined>, names: string[]): Record<string, string> {
  const exact = new Set(names.filter((n) => !n.endsWith("*")));
  const prefixes = names.filter((n) => n.endsWith("*")).map((n) => n.slice(0, -1));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !NEVER_ENV.test(k) && (exact.has(k) || prefixes.some((p) => k.startsWith(p)))) out[k] = v;
  return out;
}

/** `--sandbox-env`: names (or `PREFIX_*`), comma-separated. */
export function parseEnvNames(list: string | null | undefined): string[] {
  const names = (list ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names)
    if (!/^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(n))
      throw new UserError(`--sandbox-env: '${n}' is not a variable name (letters, digits and _, or a prefix ending in *, like MY_TOOL_*).`);
    else if (NEVER_ENV.test(n))
      throw new UserError(
        `--sandbox-env: ${n} is never passed into the sandbox: it leads to a program outside it (a terminal, a key agent, a bus or a display). Remove it.`,
      );
  return names;
}

export interface Sandbox {
  rules: SandboxRules;
  /** The private folder: the command's /tmp is in it, and the forwards' sockets. */
  dir: string;
  /** `argv` as it runs inside the sandbox, its environment, and what to do once it has ended (Place.settle). */
  wrap(
    argv: string[],
    cwd: string,
    env: Record<string, string | undefined>,
  ): { argv: string[]; env: Record<string, string | undefined>; settle?: () => string[] };
  /** Ends the forwards and removes the private folder. */
  close(): Promise<void>;
}

/** A path and the path it resolves to when that differs (a bind or a mask must cover both). */
function bothSpellings(path: string): string[] {
  const real = realOrSame(path);
  return real === path ? [path] : [path, real];
}

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * Folders replaced by empty ones inside: the temp and runtime folders, where the sockets of tmux, an SSH
 * agent, D-Bus, docker and other loops' forwards live, now and whenever they are made. /tmp itself becomes
 * the loop's private temp folder.
 */
export function hiddenFolders(env: Record<string, string | undefined> = process.env): string[] {
  const out = new Set<string>();
  for (const d of ["/var/tmp", "/run", "/var/run", env.XDG_RUNTIME_DIR, tmpdir()]) {
    if (!d || !existsSync(d) || !statSync(d).isDirectory()) continue;
    const real = realOrSame(d);
    if (real !== "/" && !under(real, "/tmp")) out.add(real);
  }
  return [...out].filter((d) => ![...out].some((o) => o !== d && under(d, o)));
}

/** Unix sockets bound on this machine now (`/proc/net/unix`), by path: each is covered inside. */
export function boundSockets(): string[] {
  let text = "";
  try {
    text = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const line of text.split("\n").slice(1)) {
    const path = line.trim().split(/\s+/).slice(7).join(" ");
    if (path.startsWith("/")) out.add(path);
  }
  return [...out];
}

const isSocket = (p: string) => {
  try {
    return lstatSync(p).isSocket();
  } catch {
    return false;
  }
};

/** The bubblewrap arguments of the file-system rules, for a command run in `place`. */
export function mountArgs(
  rules: SandboxRules,
  privateTmp: string,
  place: Place = { mounts: [] },
  keep: string[] = [],
  hidden = hiddenFolders(),
  programs: string[] = [],
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", privateTmp, "/tmp"];
  for (const h of hidden) args.push("--tmpfs", h);
  const shown: string[] = [];
  const bind = (flag: string, p: string) => {
    const real = realOrSame(p);
    args.push(flag, real, real);
    shown.push(real);
  };
  // Name lookups read /etc/resolv.conf, often a link into /run: its file is put back, read-only.
  for (const f of ["/etc/resolv.conf"]) if (existsSync(f) && [...hidden, "/tmp"].some((h) => under(realOrSame(f), h))) bind("--ro-bind", f);
  for (const k of keep) if (existsSync(k)) bind("--ro-bind", k);
  // The command's own program, when it lives in what is emptied (sandbox-program.ts); before the writable
  // folders, which may lie inside it and must stay writable.
  for (const p of programs) if (existsSync(p)) bind("--ro-bind", p);
  for (const w of rules.write) if (existsSync(w)) bind("--bind", w);
  for (const [mode, p] of place.mounts) if (existsSync(p)) bind(mode === "rw" ? "--bind" : "--ro-bind", p);
  for (const r of rules.readOnly) for (const p of bothSpellings(r).filter(existsSync)) args.push("--ro-bind", p, p);
  for (const d of rules.denyRead)
    for (const p of bothSpellings(d).filter(existsHere)) {
      if (!existsSync(p)) continue; // a dangling link: nothing to read through it
      if (statSync(p).isDirectory()) args.push("--tmpfs", p, "--remount-ro", p);
      else args.push("--ro-bind", "/dev/null", p);
    }
  // Every socket still in sight is covered: a connection to it would reach a program outside.
  const visible = (p: string) => shown.some((s) => under(p, s)) || ![...hidden, "/tmp"].some((h) => under(p, h));
  for (const s of boundSockets()) {
    if (keep.some((k) => under(s, k)) || !isSocket(s)) continue;
    const real = realOrSame(s);
    if (visible(real)) args.push("--ro-bind", "/dev/null", real);
  }
  return args;
}

/** The sandbox of run `run` (proc/contain.ts runTag): its folder is named for it (proc/sandbox-dir.ts). */
export async function openSandbox(rules: SandboxRules, run: string): Promise<Sandbox> {
  for (const w of rules.write) if (!existsHere(w) && !/\.json$/.test(w)) mkdirSync(w, { recursive: true });
  const dir = makeSandboxDir(run);
  const tmp = join(dir, "tmp");
  const net = join(dir, "net");
  mkdirSync(tmp, { mode: 0o700 });
  mkdirSync(net, { mode: 0o700 });
  const filtered = rules.network === "filtered";
  const forwards: Forward[] = filtered ? planForwards(rules.allow, net) : [];
  const hosts = join(dir, "hosts");
  writeFileSync(hosts, hostsFile(forwards));
  let outside: Running[] = [];
  try {
    outside = await startForwards(forwards);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const etcHosts = existsSync("/etc/hosts") && statSync("/etc/hosts").isFile();
  const uid = String(process.getuid?.() ?? 0);
  const gid = String(process.getgid?.() ?? 0);
  const hidden = hiddenFolders();
  return {
    rules,
    dir,
    wrap(argv, cwd, env) {
      const place = rules.place?.(cwd) ?? { mounts: [["rw", cwd]] };
      // Only its temp folder is writable: the forwards' sockets (this loop's own, and no other's) stay as made.
      const mounts = mountArgs(rules, tmp, place, filtered ? [net] : [], hidden, programFolders(argv, cwd, env, hidden));
      // A session of its own: no controlling terminal to push keystrokes into (TIOCSTI) for the shell after the loop.
      const base = [...mounts, "--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent", "--chdir", cwd];
      const inner = { ...allowedEnv(env, [...BASE_ENV, ...rules.env]), TMPDIR: "/tmp" };
      const settle = place.settle;
      // A user namespace always, and every capability dropped: root too could otherwise unmount a mask or remount / writable.
      const drop = ["--unshare-user", "--uid", uid, "--gid", gid, "--cap-drop", "ALL"];
      if (!filtered) return { argv: ["bwrap", ...base, ...drop, "--", ...argv], env: inner, settle };
      const script = `${insideScript(forwards)}\nexec bwrap ${drop.join(" ")} --dev-bind / / --die-with-parent --chdir "$PWD" -- "$@"`;
      return {
        argv: [
          "bwrap",
          ...base,
          "--unshare-net",
          ...(etcHosts ? ["--ro-bind", hosts, "/etc/hosts"] : []),
          "--unshare-user",
          "--uid",
          "0",
          "--gid",
          "0",
          "--cap-add",
          "ALL",
          "--",
          "sh",
          "-c",
          script,
          "wt-loop-sandbox",
          ...argv,
        ],
        env: inner,
        settle,
      };
    },
    async close() {
      await stopForwards(outside);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
