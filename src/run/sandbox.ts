/**
 * The loop's `--sandbox`: the rules of proc/sandbox.ts for one loop, from its state, its agent's
 * adapter (the agent's own state folders, its API host) and the user's environment. Opened once per
 * run of the loop; the agent, `--verify` and `--notify` all run in it.
 */
import { existsSync, lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { AgentAdapter } from "../agents/adapter.ts";
import { UserError } from "../errors.ts";
import { configPaths } from "../setup/config-file.ts";
import { DENIED_HOME, openSandbox, type Sandbox, type SandboxRules } from "../proc/sandbox.ts";
import { endpointOfUrl, parseEndpoints, type Endpoint } from "../proc/sandbox-net.ts";
import { requireSandbox } from "../proc/sandbox-tools.ts";
import { exec } from "../proc/spawn.ts";
import type { State } from "../state/schema.ts";

type Env = Record<string, string | undefined>;
type SandboxState = Pick<State, "worktree_path" | "sandbox_network" | "sandbox_allow" | "sandbox_deny_read">;

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
    if (!e) throw new UserError(`--sandbox: the ${adapter.name} agent's API base URL '${api}' is not an http(s) URL, so its host cannot be allowed. Fix the variable, or run without --sandbox.`);
    out.push(e);
  }
  return [...out, ...parseEndpoints(s.sandbox_allow)];
}

/** Inside a writable git dir, what wt-loop's own git reads to decide what to run (hooks, config) or where the repository is. */
function gitControlled(gitDirs: string[], worktree: string): string[] {
  // A hooks folder that does not exist could be made by the agent, and git would run what it put there:
  // made empty first, so that it is bound read-only like any other.
  const hooks = join(gitDirs.at(-1)!, "hooks");
  if (!existsSync(hooks)) mkdirSync(hooks);
  const out = gitDirs.flatMap((d) => ["config", "config.worktree", "hooks", "commondir", "gitdir"].map((f) => join(d, f)));
  const dotGit = join(worktree, ".git");
  if (existsSync(dotGit) && lstatSync(dotGit).isFile()) out.push(dotGit); // a linked worktree's pointer to its git dir
  return out;
}

/** `agents`: the loop's agent, and its reviewer when `--review` names another: each one's state and API host are allowed. */
export async function sandboxRules(s: SandboxState, agents: AgentAdapter[], env: Env, timeoutMs = 30_000): Promise<SandboxRules> {
  const home = env.HOME || homedir();
  const wt = s.worktree_path;
  const git = async (arg: string) => resolve(wt, (await exec(["git", "rev-parse", arg], { cwd: wt, timeoutMs })).stdout.trim());
  const gitDirs = [...new Set([await git("--absolute-git-dir"), await git("--git-common-dir")])];
  const denied = (s.sandbox_deny_read ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  return {
    write: [wt, ...gitDirs, ...agents.flatMap((a) => a.sandbox?.state(env, home) ?? [])],
    readOnly: gitControlled(gitDirs, wt),
    // wt-loop's own folder too: with its seal key an agent could forge a state whose remembered commands a restart would run.
    denyRead: [...DENIED_HOME.map((p) => join(home, p)), dirname(configPaths(wt, env).user), ...denied.map((p) => expand(p, home, wt))],
    network: s.sandbox_network ?? "filtered",
    allow: [...agents.flatMap((a) => allowedHosts({ sandbox_allow: null }, a, env)), ...parseEndpoints(s.sandbox_allow)],
  };
}

/** The loop's sandbox, or null without `--sandbox`. Missing tools stop it here, before anything runs. */
export async function loopSandbox(s: SandboxState & Pick<State, "sandbox">, agents: AgentAdapter[], env: Env): Promise<Sandbox | null> {
  if (!s.sandbox) return null;
  requireSandbox();
  return openSandbox(await sandboxRules(s, agents, env));
}
