/**
 * The sandbox's network: a network namespace with nothing in it but loopback, and one forward per
 * allowed host. Inside, the host's name resolves (a private /etc/hosts) to a loopback address of its
 * own, where socat listens on the host's port and passes each connection through a unix socket in
 * the sandbox's private folder; outside, a socat on that socket connects to the real host. A name or
 * port not forwarded has nothing to connect to: the connection is refused (a name that is not
 * forwarded does not even resolve, the namespace has no DNS). TLS is untouched: the agent still
 * talks to the host by its name, end to end.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { start, type Running } from "./spawn.ts";

export interface Endpoint {
  host: string;
  port: number;
}

const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const NAME = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;

/** `host[:port]` (443 when no port is given). Names and loopback addresses only: see the file's comment. */
export function parseEndpoint(text: string, what = "--sandbox-allow"): Endpoint {
  const m = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(text.trim());
  const port = m?.[2] === undefined ? 443 : Number(m[2]);
  const host = m?.[1]?.toLowerCase() ?? "";
  if (!m || port < 1 || port > 65535 || !(LOOPBACK.test(host) || (NAME.test(host) && !/^[\d.]+$/.test(host))))
    throw new UserError(`${what}: '${text}' is not a host[:port] (a host name, or a 127.x.x.x address, and a port from 1 to 65535).`);
  return { host, port };
}

/** A comma-separated list of `host[:port]`. */
export const parseEndpoints = (list: string | null | undefined, what?: string): Endpoint[] =>
  (list ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => parseEndpoint(s, what));

/** The host and port of a base URL (`http://127.0.0.1:8080`, `https://api.anthropic.com`); null when it is not one. */
export function endpointOfUrl(url: string): Endpoint | null {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    return { host, port: u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80 };
  } catch {
    return null;
  }
}

export interface Forward extends Endpoint {
  /** Where it listens inside: the host's own loopback address (a 127.x address listens on itself). */
  inside: string;
  socket: string;
}

/** One forward per distinct endpoint; each name gets its own loopback address, 127.77.0.1 upwards. */
export function planForwards(endpoints: Endpoint[], socketDir: string): Forward[] {
  const seen = new Set<string>();
  const addr = new Map<string, string>();
  const out: Forward[] = [];
  for (const e of endpoints) {
    const key = `${e.host}:${e.port}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const host = e.host === "localhost" ? "127.0.0.1" : e.host;
    if (!LOOPBACK.test(host) && !addr.has(host)) addr.set(host, `127.77.${Math.floor(addr.size / 250)}.${(addr.size % 250) + 1}`);
    out.push({ ...e, inside: LOOPBACK.test(host) ? host : addr.get(host)!, socket: join(socketDir, `${out.length}.sock`) });
  }
  return out;
}

/** The private /etc/hosts: localhost, and each forwarded name at its loopback address. */
export function hostsFile(forwards: Forward[]): string {
  const names = new Map<string, string>();
  for (const f of forwards) if (!LOOPBACK.test(f.host) && f.host !== "localhost") names.set(f.host, f.inside);
  return ["127.0.0.1 localhost", "::1 localhost ip6-localhost", ...[...names].map(([n, a]) => `${a} ${n}`)].join("\n") + "\n";
}

/** How long the forwards may take to make their sockets. */
const SOCKET_WAIT_MS = 10_000;

/** The outside ends: one socat per forward, each ready (its socket made) before this resolves. */
export async function startForwards(forwards: Forward[]): Promise<Running[]> {
  const runs: Running[] = [];
  try {
    for (const f of forwards) runs.push(start(["socat", `UNIX-LISTEN:${f.socket},fork,unlink-early,mode=600`, `TCP:${f.host}:${f.port}`], { cwd: "/" }));
    const until = Date.now() + SOCKET_WAIT_MS;
    while (!forwards.every((f) => existsSync(f.socket))) {
      if (Date.now() > until) throw new Error(`the sandbox's network forwards did not start (socat made no socket within ${SOCKET_WAIT_MS / 1000} s)`);
      await Bun.sleep(5);
    }
    return runs;
  } catch (err) {
    await stopForwards(runs);
    throw err;
  }
}

export async function stopForwards(runs: Running[]): Promise<void> {
  for (const r of runs) r.kill();
  await Promise.all(runs.map((r) => r.done.catch(() => {})));
}

/** `/proc/net/tcp`'s spelling of a listening address: `0100007F:1F90 00000000:0000 0A`. */
const procListen = (f: Forward) => {
  const ip = f.inside
    .split(".")
    .map((n) => Number(n).toString(16).padStart(2, "0").toUpperCase())
    .reverse()
    .join("");
  return `${ip}:${f.port.toString(16).padStart(4, "0").toUpperCase()} 00000000:0000 0A`;
};

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The inside ends, as shell: a socat listener per forward, then a wait until every one listens (the
 * agent's first connection must not race them). Exit 125 with a line saying so when they do not.
 */
export function insideScript(forwards: Forward[]): string {
  const lines = forwards.map((f) => `socat TCP-LISTEN:${f.port},bind=${f.inside},fork,reuseaddr UNIX-CONNECT:${q(f.socket)} &`);
  if (forwards.length)
    lines.push(
      "i=0",
      `while :; do t=$(cat /proc/net/tcp); ok=1; for w in ${forwards.map((f) => q(procListen(f))).join(" ")}; do case "$t" in *"$w"*) ;; *) ok=0;; esac; done`,
      `  [ $ok = 1 ] && break; i=$((i+1)); [ $i -lt 1000 ] || { echo "wt-loop: the sandbox's network forwards did not start" >&2; exit 125; }; ` +
        `sleep 0.01; done`,
    );
  return lines.join("\n");
}
