/**
 * `--sandbox`: the agent, `--verify` and `--notify` run under bubblewrap. The whole file system is
 * mounted read-only, then the folders the command may change are bound writable again (the
 * worktree, its git dirs, the agent's own state, a private temp folder), then what stays read-only
 * inside those (a git dir's config and hooks: wt-loop's own git runs them, outside the sandbox) and
 * what must not be read at all (credentials: an empty folder or file in their place).
 *
 * With the network filtered there are two namespaces, one inside the other: the outer one (root in
 * a user namespace of its own, so it may listen on ports below 1024) starts the forwards of
 * sandbox-net.ts and nothing else; the inner one runs the command as the user again, with no
 * capability at all. Without filtering, one bubblewrap with the host's network.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostsFile, insideScript, planForwards, startForwards, stopForwards, type Endpoint, type Forward } from "./sandbox-net.ts";
import type { Running } from "./spawn.ts";
import { existsHere } from "./safe-fs.ts";

export type SandboxNetwork = "filtered" | "open";

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
}

/** Credentials no agent needs: never readable inside, whatever the configuration says. */
export const DENIED_HOME = [".ssh", ".aws", ".gnupg", ".config/gh", ".netrc"];

export interface Sandbox {
  rules: SandboxRules;
  /** The private folder: the command's TMPDIR is in it, and the forwards' sockets. */
  dir: string;
  /** `argv` as it runs inside the sandbox, and its environment. */
  wrap(argv: string[], cwd: string, env: Record<string, string | undefined>): { argv: string[]; env: Record<string, string | undefined> };
  /** Ends the forwards and removes the private folder. */
  close(): Promise<void>;
}

/** A path and the path it resolves to when that differs (a bind or a mask must cover both). */
function bothSpellings(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/** The bubblewrap arguments of the file-system rules. */
export function mountArgs(rules: SandboxRules, privateTmp: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const w of [...rules.write, privateTmp]) {
    if (!existsSync(w)) continue;
    const real = realpathSync(w);
    args.push("--bind", real, real);
  }
  for (const r of rules.readOnly) for (const p of bothSpellings(r).filter(existsSync)) args.push("--ro-bind", p, p);
  for (const d of rules.denyRead)
    for (const p of bothSpellings(d).filter(existsHere)) {
      if (!existsSync(p)) continue; // a dangling link: nothing to read through it
      if (statSync(p).isDirectory()) args.push("--tmpfs", p, "--remount-ro", p);
      else args.push("--ro-bind", "/dev/null", p);
    }
  return args;
}

export async function openSandbox(rules: SandboxRules): Promise<Sandbox> {
  for (const w of rules.write) if (!existsHere(w) && !/\.json$/.test(w)) mkdirSync(w, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), "wt-loop-sandbox-"));
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
  // Only its temp folder is writable: the hosts file and the sockets beside it stay as made.
  const mounts = mountArgs(rules, tmp);
  const etcHosts = existsSync("/etc/hosts") && statSync("/etc/hosts").isFile();
  const uid = String(process.getuid?.() ?? 0);
  const gid = String(process.getgid?.() ?? 0);
  return {
    rules,
    dir,
    wrap(argv, cwd, env) {
      const base = [...mounts, "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--chdir", cwd];
      const inner = { ...env, TMPDIR: tmp };
      if (!filtered) return { argv: ["bwrap", ...base, "--", ...argv], env: inner };
      const script = `${insideScript(forwards)}\nexec bwrap --unshare-user --uid ${uid} --gid ${gid} --dev-bind / / --die-with-parent --chdir "$PWD" -- "$@"`;
      return {
        argv: [
          "bwrap", ...base, "--unshare-net", ...(etcHosts ? ["--ro-bind", hosts, "/etc/hosts"] : []),
          "--unshare-user", "--uid", "0", "--gid", "0", "--cap-add", "ALL",
          "--", "sh", "-c", script, "wt-loop-sandbox", ...argv,
        ],
        env: inner,
      };
    },
    async close() {
      await stopForwards(outside);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
