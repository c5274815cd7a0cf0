/**
 * The loop's `--sandbox`: the rules of proc/sandbox.ts for one loop, from its state, its agent's
 * adapter (the agent's own state folders and configuration, its API host, its variables) and the
 * user's environment. Opened once per run of the loop; the agent, `--verify` and `--notify` all run
 * in it, each with the rules of the worktree it runs in (the loop's, or a lane's: sandbox-git.ts).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { AgentAdapter } from "../agents/adapter.ts";
import { UserError } from "../errors.ts";
import { configPaths } from "../setup/config-file.ts";
import { worktreePlace } from "./sandbox-git.ts";
import { DENIED_HOME, openSandbox, parseEnvNames, type Sandbox, type SandboxRules } from "../proc/sandbox.ts";
import { endpointOfUrl, parseEndpoints, type Endpoint } from "../proc/sandbox-net.ts";
import { requireSandbox } from "../proc/sandbox-tools.ts";
import { existsHere } from "../proc/safe-fs.ts";
import { runTag } from "../proc/contain.ts";
import type { State } from "../state/schema.ts";

type Env = Record<string, string | undefined>;
type SandboxState = Pick<State, "worktree_path" | "sandbox_network" | "sandbox_allow" | "sandbox_deny_read" | "sandbox_env">;

/** `~/x` and relative paths (from the worktree) made absolute. */
function expand(path: string, home: string, worktree: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(worktree, path);
}

/** The hosts a sandboxed loop may reach: its agent's API host and the `--sandbox-allow` ones. */
export function allowedHosts(s: Pick<State, "sandbox_allow">, adapter: AgentAdapter, env: Env): Endpoint[] {
  const out: Endpoint[] = [];
  const api = adapter.sandbox?.api(env);
  if (api) {
    const e = endpointOfUrl(api);
    if (!e)
      throw new UserError(
        `--sandbox: the ${adapter.name} agent's API base URL '${api}' is not an http(s) URL, so its host cannot be allowed. ` +
          `Fix the variable, or run without --sandbox.`,
      );
    out.push(e);
  }
  return [...out, ...parseEndpoints(s.sandbox_allow)];
}

/**
 * An agent's configuration that is missing is made empty first (what the agent reads the same as none),
 * so that it too is bound read-only: a file the agent could create there would run in the user's next
 * session. `.json` files get `{}`, other files nothing, names without a dot are folders.
 */
function makeEmpty(path: string): void {
  if (existsHere(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  const leaf = path.slice(path.lastIndexOf("/") + 1);
  if (!/\./.test(leaf.replace(/^\./, ""))) mkdirSync(path);
  else writeFileSync(path, /\.json$/.test(path) ? "{}\n" : "", { flag: "wx" });
}

/** `agents`: the loop's agent, and its reviewer when `--review` names another: each one's state, configuration, variables and API host. */
export async function sandboxRules(s: SandboxState, agents: AgentAdapter[], env: Env): Promise<SandboxRules> {
  const home = env.HOME || homedir();
  const wt = s.worktree_path;
  const denied = (s.sandbox_deny_read ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const write = agents.flatMap((a) => a.sandbox?.state(env, home) ?? []);
  for (const w of write) if (!existsHere(w) && !/\.json$/.test(w)) mkdirSync(w, { recursive: true });
  const config = agents.flatMap((a) => a.sandbox?.config(env, home) ?? []);
  for (const c of config) if (existsSync(dirname(c))) makeEmpty(c);
  return {
    write,
    readOnly: config,
    // wt-loop's own folder too: with its seal key an agent could forge a state whose remembered commands a restart would run.
    denyRead: [...DENIED_HOME.map((p) => join(home, p)), dirname(configPaths(wt, env).user), ...denied.map((p) => expand(p, home, wt))],
    network: s.sandbox_network ?? "filtered",
    allow: [...agents.flatMap((a) => allowedHosts({ sandbox_allow: null }, a, env)), ...parseEndpoints(s.sandbox_allow)],
    env: [...agents.flatMap((a) => a.sandbox?.env ?? []), ...parseEnvNames(s.sandbox_env)],
    place: worktreePlace,
  };
}

/** The loop's sandbox, or null without `--sandbox`. Missing tools stop it here, before anything runs. */
export async function loopSandbox(s: SandboxState & Pick<State, "sandbox" | "started_at">, agents: AgentAdapter[], env: Env): Promise<Sandbox | null> {
  if (!s.sandbox) return null;
  requireSandbox();
  return openSandbox(await sandboxRules(s, agents, env), runTag(s.worktree_path, s.started_at));
}
