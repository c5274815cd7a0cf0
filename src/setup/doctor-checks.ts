/**
 * The checks of setup/doctor.ts, in the order `doctor` shows them. Each is one entry of CHECKS; one
 * that needs more than a few lines keeps its work in its own function below.
 */
import { statfsSync } from "node:fs";
import { join, relative } from "node:path";
import { adapterFor, AGENT_INSTALL, checkAgent, checkReviewer, plainProgram } from "../agents/registry.ts";
import { AUDIT_FLAGS } from "../agents/auditor.ts";
import { sandboxProblem, sandboxTools } from "../proc/sandbox-tools.ts";
import { UserError } from "../errors.ts";
import { CommandError, exec } from "../proc/spawn.ts";
import { selfArgv } from "../proc/self.ts";
import { loopPaths } from "../state/paths.ts";
import { isOpenSpecProject } from "../stories/openspec.ts";
import { chooseLauncher, NO_TERMINAL } from "../term/window.ts";
import type { Check, CheckLine, DoctorInput } from "./doctor.ts";
import { untrustedCommands } from "./trust.ts";
import { makePlan } from "./plan.ts";
import { otherAgents } from "../agents/story-agent.ts";
import { isComplete } from "../stories/story.ts";
import { LOOP_FOLDER_CHECK } from "./loop-folder-check.ts";

type Found = Omit<CheckLine, "id">;
const ok = (text: string): Found => ({ mark: "ok", text, fix: null });

const OPENSPEC_INSTALL = "npm install -g @fission-ai/openspec";
const systemInstall = (pkg: string) =>
  process.platform === "darwin" ? `brew install ${pkg}` : `sudo apt-get install ${pkg} (or your system's package manager)`;

/**
 * The git commands a loop runs; `git <cmd> -h` answers 129 when git has it, 1 ("not a git command") when not.
 * `--parallel` adds worktree, rebase (a lane is replayed in itself) and checkout-index (an undone integration);
 * no minimum version: its one newer step, `merge-tree --write-tree` (2.38), keeps a lane's work when it fails.
 */
const GIT_COMMANDS = [
  "rev-parse",
  "status",
  "stash",
  "update-ref",
  "symbolic-ref",
  "write-tree",
  "read-tree",
  "update-index",
  "ls-files",
  "commit-tree",
  "worktree",
  "rebase",
  "checkout-index",
];

export const CHECKS: Check[] = [
  { id: "git", run: checkGit },
  {
    id: "worktree",
    run: ({ worktree }) =>
      "error" in worktree
        ? { mark: "fail", text: worktree.error, fix: "cd into the worktree the loop is for (a new one: git worktree add ../NAME)" }
        : ok(`${worktree.path}`),
  },
  { id: "agent", run: (input) => checkRole(input, "agent") },
  { id: "reviewer", run: (input) => checkRole(input, "reviewer") },
  { id: "auditor", run: (input) => checkRole(input, "auditor") },
  { id: "sandbox", run: checkSandbox },
  { id: "openspec", run: checkOpenSpec },
  { id: "stories", run: checkStories },
  { id: "gh", run: checkGh },
  { id: "terminal", run: checkTerminal },
  LOOP_FOLDER_CHECK,
  { id: "disk", run: checkDisk },
  { id: "trust", run: checkTrust },
];

/** The first line a program prints for `--version`, or null when it does not answer. */
async function versionOf(argv: string[], input: DoctorInput): Promise<string | null> {
  const r = await exec(argv, { cwd: input.cwd, env: input.env, timeoutMs: 10_000, allowFailure: true }).catch(() => null);
  return r?.code === 0 ? (r.stdout.trim().split("\n")[0] ?? null) : null;
}

async function checkGit(input: DoctorInput): Promise<Found> {
  let version: string;
  try {
    version = (await exec(["git", "--version"], { cwd: input.cwd, env: input.env, timeoutMs: 10_000 })).stdout.trim();
  } catch (err) {
    if (err instanceof CommandError && err.reason === "missing")
      return { mark: "fail", text: "git is not installed (not found on PATH).", fix: systemInstall("git") };
    return { mark: "fail", text: `\`git --version\` failed: ${(err as Error).message}`, fix: `reinstall git: ${systemInstall("git")}` };
  }
  // Only `doctor` probes each subcommand: ten processes on every start cost ~40 ms (docs/performance.md), for a
  // git so old or stripped that it lacks one, which its first call would name anyway.
  if (input.purpose !== "doctor") return ok(version);
  const answers = await Promise.all(
    GIT_COMMANDS.map((c) =>
      exec(["git", c, "-h"], { cwd: input.cwd, env: input.env, timeoutMs: 10_000, allowFailure: true }).then(
        (r) => r.code,
        () => -1,
      ),
    ),
  );
  const missing = GIT_COMMANDS.filter((_, i) => answers[i] !== 129 && answers[i] !== 0);
  if (missing.length)
    return {
      mark: "fail",
      text: `${version} cannot run ${missing.map((c) => `\`git ${c}\``).join(", ")}, which the loop needs.`,
      fix: `reinstall git: ${systemInstall("git")}`,
    };
  return ok(version);
}

/** The agent's program (`--agent`), the reviewer's (`--review`) or the auditor's (`--audit-agent`): on PATH, and for `doctor` its version. */
async function checkRole(input: DoctorInput, role: "agent" | "reviewer" | "auditor"): Promise<Found | null> {
  const { opts } = input;
  // The auditor's line only when it is another program than the agent's and the reviewer's (those have theirs).
  const name = role === "agent" ? opts?.agent : role === "reviewer" ? opts?.review : opts?.audit ? opts.auditAgent : undefined;
  if (!opts || !name) return null;
  const cmd = (role === "agent" ? opts.agentCmd : role === "reviewer" ? opts.reviewCmd : opts.auditCmd) ?? null;
  const cwd = "error" in input.worktree ? input.cwd : input.worktree.path;
  try {
    if (role === "agent") checkAgent(name, { agentCmd: cmd }, input.env.PATH, cwd);
    else if (role === "reviewer") checkReviewer(name, { agentCmd: cmd, model: opts.reviewModel ?? null }, input.env.PATH, cwd);
    else checkAgent(name, { agentCmd: cmd }, input.env.PATH, cwd, AUDIT_FLAGS);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    return { mark: "fail", text: err.message, fix: AGENT_INSTALL[name] ?? null };
  }
  if (name === "demo") return ok("demo (wt-loop's scripted agent)");
  if (name === "command") return ok(`command: ${plainProgram(cmd ?? "") ?? "a shell command"} (run with sh -c)`);
  const bin = adapterFor(name).argv({ prompt: "", model: null, agentCmd: null })[0]!;
  // Only `doctor` asks for the version: an agent's CLI may take a second to answer, which a start need not wait for.
  if (input.purpose !== "doctor") return ok(`${name}: ${bin}`);
  const version = await versionOf([bin, "--version"], input);
  if (version === null)
    return {
      mark: "warn",
      text: `${name}: ${bin} is on PATH but \`${bin} --version\` failed; the loop's runs may fail the same way.`,
      fix: AGENT_INSTALL[name] ?? null,
    };
  return ok(`${name}: ${bin} ${version}`);
}

/** `--sandbox`: Linux, and the tools it is built from. A sandbox that cannot be made is never replaced by an unsandboxed run. */
function checkSandbox(input: DoctorInput): Found | null {
  if (!input.opts?.sandbox) return null;
  const PATH = input.env.PATH ?? "";
  const problem = sandboxProblem(process.platform, PATH);
  if (problem) return { mark: "fail", text: problem, fix: process.platform === "linux" ? systemInstall("bubblewrap socat ripgrep") : "run without --sandbox" };
  return ok(
    sandboxTools(PATH)
      .map((t) => t.path)
      .join(", "),
  );
}

async function checkOpenSpec(input: DoctorInput): Promise<Found | null> {
  if ("error" in input.worktree || !input.opts) return null;
  if (!input.opts.change && !isOpenSpecProject(input.worktree.path)) return null;
  if (!Bun.which("openspec", { PATH: input.env.PATH ?? "" }))
    return {
      mark: "warn",
      text: "The openspec CLI is not installed: the loop reads openspec/changes/ itself, without the context files a change declares.",
      fix: OPENSPEC_INSTALL,
    };
  if (input.purpose !== "doctor") return ok("openspec");
  return ok(`openspec ${(await versionOf(["openspec", "--version"], input)) ?? "(version unknown)"}`);
}

/**
 * The work a start here would read (setup/plan.ts), and what `start` would refuse in it: a tasks file without
 * boxes, an `(after N)` that names no story, a heading naming an agent that is unknown or not installed. Only
 * `doctor` asks (a start makes the same plan itself); stories from GitHub are read at start, not here.
 */
async function checkStories(input: DoctorInput): Promise<Found | null> {
  const { opts } = input;
  if (input.purpose !== "doctor" || !opts || "error" in input.worktree || opts.issue || opts.issues) return null;
  const wt = input.worktree.path;
  // Without a tasks file a start takes its task from the command line; doctor's own task changes nothing checked.
  const planned = { ...opts, task: opts.task ?? "the task start is given" };
  try {
    const plan = await makePlan(wt, planned, { cwd: wt, env: input.env, timeoutMs: 30_000, warn: () => {} });
    if (plan.doneCriteria === "manual")
      return ok(plan.tasksFile ? `${relative(wt, plan.tasksFile)}, read as one task (--done manual)` : "no tasks.md: start takes the task you give it");
    const left = plan.stories.filter((s) => !isComplete(s));
    const loop = { agent: opts.agent, agent_cmd: opts.agentCmd ?? null };
    const others = otherAgents(loop, left);
    const named = others.length ? `; headings name ${others.join(", ")} (installed)` : "";
    return ok(`${plan.stories.length} stories in ${relative(wt, plan.tasksFile!)}, ${left.length} left${named}`);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    return { mark: "fail", text: err.message.replace(/ Nothing was started\.$/, "").replace(", so nothing was started:", ":"), fix: null };
  }
}

/**
 * GitHub's CLI: needed by a loop whose stories come from an issue or that opens a pull request (docs/github.md);
 * shown by `doctor` when installed, with its login on the host (`gh auth status`).
 */
async function checkGh(input: DoctorInput): Promise<Found | null> {
  const o = input.opts;
  const uses = o?.issue ? "--issue" : o?.issues ? "--issues" : o?.onComplete === "pr" ? "--on-complete pr" : null;
  if (!Bun.which("gh", { PATH: input.env.PATH ?? "" })) {
    if (!uses) return null;
    return {
      mark: "fail",
      text: `GitHub's CLI \`gh\` is not installed, and ${uses} needs it`,
      fix: `${systemInstall("gh")}, or https://cli.github.com; then gh auth login`,
    };
  }
  if (input.purpose !== "doctor") return ok("gh");
  const version = (await versionOf(["gh", "--version"], input)) ?? "gh (version unknown)";
  const host = input.env.GH_HOST || "github.com";
  const status = await exec(["gh", "auth", "status", "--hostname", host], {
    cwd: input.cwd,
    env: { ...input.env, GH_PROMPT_DISABLED: "1", GH_NO_UPDATE_NOTIFIER: "1", NO_COLOR: "1" },
    timeoutMs: 10_000,
    allowFailure: true,
  }).catch(() => null);
  if (status?.code === 0) return ok(`${version}, logged in to ${host} (GitHub: --issue, --issues, --on-complete pr; docs/github.md)`);
  // Not logged in: nothing needs it unless an option does.
  const text = `${version}, not logged in to ${host}`;
  const fix = `gh auth login --hostname ${host} (or set GH_TOKEN)`;
  return uses ? { mark: "fail", text: `${text}, and ${uses} needs it`, fix } : ok(`${text} (${fix}; GitHub: docs/github.md)`);
}

function checkTerminal(input: DoctorInput): Found | null {
  const { opts } = input;
  // `run` is the loop's own terminal, and a dry run opens nothing.
  if (!opts || input.purpose === "run" || opts.dryRun) return null;
  if (opts.terminal === "inline") return ok("inline: the loop runs in the terminal that starts it");
  const chosen = chooseLauncher({
    terminal: opts.terminal,
    env: input.env,
    platform: process.platform,
    which: (b) => Bun.which(b, { PATH: input.env.PATH ?? "" }),
    cwd: input.cwd,
    cmd: [...selfArgv(), "run"],
    name: "wt-loop",
  });
  if (!chosen) return { mark: "fail", text: NO_TERMINAL, fix: systemInstall("tmux") };
  return ok(`${chosen.terminal}${chosen.hint ? ` (${chosen.hint.split(".")[0]})` : ""}`);
}

/** Below this, a loop fails on its first log or checkpoint; below WARN_BELOW, soon after. */
export const FAIL_BELOW = 100 * 2 ** 20;
export const WARN_BELOW = 1024 * 2 ** 20;

export function diskMark(free: number): CheckLine["mark"] {
  return free < FAIL_BELOW ? "fail" : free < WARN_BELOW ? "warn" : "ok";
}

function checkDisk(input: DoctorInput): Found | null {
  if ("error" in input.worktree || input.opts?.dryRun) return null;
  const s = statfsSync(input.worktree.path);
  const free = s.bavail * s.bsize;
  const text = `${(free / 2 ** 30).toFixed(1)} GB free on the worktree's file system`;
  const mark = diskMark(free);
  return { mark, text: mark === "ok" ? text : `Only ${text}: the loop writes logs and checkpoints as it goes.`, fix: mark === "ok" ? null : "free some space" };
}

/** `start` asks about (or, without a terminal, refuses) commands nobody trusted: the trust gate. Shown by `doctor` only. */
function checkTrust(input: DoctorInput): Found | null {
  const { opts, layered } = input;
  if (input.purpose !== "doctor" || !opts || !layered || "error" in input.worktree) return null;
  const untrusted = untrustedCommands(layered, opts, input.previous, loopPaths(input.worktree.path).state, input.env);
  if (!untrusted.length) return layered.files.project.found ? ok(`${layered.files.project.path}: nothing untrusted to run`) : null;
  const commands = untrusted.flatMap((u) => u.commands.map((c) => `--${c.flag}`)).join(", ");
  return {
    mark: "warn",
    text: `${untrusted.map((u) => u.source).join(", ")} sets ${commands}, not trusted: start asks on a terminal and refuses without one.`,
    fix: untrusted.some((u) => u.why !== "unsealed") ? "read it, then: wt-loop trust" : `give them as flags, or --${untrusted[0]!.commands[0]!.flag} none`,
  };
}
