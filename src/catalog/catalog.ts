/**
 * Every command's name, one-line summary, usage and examples, in one light module: `wt-loop --help`
 * and the "did you mean" of a mistyped command need no command module loaded (start-up, docs/performance.md
 * "Performance"). The command's options come from its own module, loaded for its help.
 */
import type { CommandDef } from "citty";
import { STOP_WAIT_SEC } from "../control/stop-wait.ts";
import { ExitCode } from "../errors.ts";

export interface CommandInfo {
  name: string;
  summary: string;
  usage: string;
  /** [command line, what it does] */
  examples: [string, string][];
  /** Its exit code is the loop's: its help lists the codes. */
  loopExitCodes?: boolean;
  hidden?: boolean;
  /** It prints only with console.log (no process.stdout stream, so no EPIPE guard needed). */
  plainOutput?: boolean;
  /**
   * It prints and ends: it keeps the reluctant JIT the binary starts with (scripts/release/compile.ts);
   * every other command sets the normal one back before it runs (cli.ts).
   */
  quick?: boolean;
  /** It acts on the worktree of the current directory: the git call that finds it starts at once. */
  worktree?: boolean;
  /** Starts what the command will wait for (a git call), while its modules load. */
  prefetch?: () => Promise<void>;
  // biome-ignore lint: citty's CommandDef is generic over each command's own args
  load: () => Promise<CommandDef<any>>;
}

/** Loaded before `log`, which parses the event log with zod: see state/one-shot.ts. */
const oneShot = () => import("../state/one-shot.ts");

export const COMMANDS: CommandInfo[] = [
  {
    name: "start",
    worktree: true,
    summary: "Start a loop in this worktree, in a new terminal window",
    usage: "wt-loop start [TASK] [options]",
    loopExitCodes: true,
    examples: [
      ["wt-loop start", "implement the OpenSpec change (or tasks.md) here"],
      ['wt-loop start "Add a --verbose flag" --done manual', "a task in words, no tasks.md"],
      ["wt-loop start --verify 'npm test' --max-cost 20", "a COMPLETE counts only when npm test passes; stop once $20 is spent"],
    ],
    load: () => import("../commands/start.ts").then((m) => m.default),
  },
  {
    name: "run",
    worktree: true,
    summary: "Run the loop in this terminal (what `start` opens in the new window)",
    usage: "wt-loop run [TASK] [options]",
    loopExitCodes: true,
    examples: [
      ["wt-loop run", "the loop `start` prepared, or a new one, here"],
      ["wt-loop run --agent codex --dry-run", "print the plan with Codex as the agent"],
    ],
    load: () => import("../commands/run.ts").then((m) => m.default),
  },
  {
    name: "stop",
    worktree: true,
    summary: "Stop the loop gracefully (or at once with --force)",
    usage: "wt-loop stop [options]",
    examples: [
      ["wt-loop stop", `stop after the agent is signalled; wait up to ${STOP_WAIT_SEC} s`],
      ["wt-loop stop --force", "kill the runner and its agent now"],
    ],
    load: () => import("../commands/stop.ts").then((m) => m.default),
  },
  {
    name: "pause",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "Pause the running loop when its current iteration ends",
    usage: "wt-loop pause",
    examples: [
      ["wt-loop pause", "the agent finishes its iteration, then the loop waits for `wt-loop resume`"],
      ["wt-loop status", "says `paused` once the iteration has ended"],
    ],
    load: () => import("../commands/pause.ts").then((m) => m.default),
  },
  {
    name: "resume",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "Resume a paused loop (or call off a pause not yet reached)",
    usage: "wt-loop resume",
    examples: [
      ["wt-loop resume", "the next iteration starts now"],
      ["wt-loop pause && wt-loop resume", "calls off a pause the loop has not reached yet"],
    ],
    load: () => import("../commands/resume.ts").then((m) => m.default),
  },
  {
    name: "note",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "Leave a note for the agent: the running loop's next prompt carries it",
    usage: 'wt-loop note "TEXT"',
    examples: [
      ['wt-loop note "the API moved to /v2; do not touch the old client"', 'the next iteration\'s prompt has it under "Note from the user"'],
      ['wt-loop note "run the e2e tests before you say COMPLETE"', "notes wait in order; the next prompt carries them all"],
    ],
    load: () => import("../commands/note.ts").then((m) => m.default),
  },
  {
    name: "max",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "Raise or lower the running loop's iteration limit",
    usage: "wt-loop max +N|-N|N",
    examples: [
      ["wt-loop max +10", "ten more iterations"],
      ["wt-loop max -- -5", "five fewer (never below the iterations run, the running one included)"],
      ["wt-loop max 40", "a limit of 40"],
    ],
    load: () => import("../commands/max.ts").then((m) => m.default),
  },
  {
    name: "status",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "Show the loop's status in this worktree",
    usage: "wt-loop status [--json]",
    examples: [
      ["wt-loop status", "where the loop is"],
      ["wt-loop status --json | jq .status", "the state file, for scripts"],
    ],
    load: () => import("../commands/status.ts").then((m) => m.default),
  },
  {
    name: "pr",
    worktree: true,
    plainOutput: true,
    summary: "Push the ended loop's branch and open its pull request with the loop's proof (or update the one it has)",
    usage: "wt-loop pr",
    examples: [
      ["wt-loop pr", "push the branch, open the pull request (a draft while stories remain); run again to update the same one"],
      ["wt-loop start --on-complete pr", "the same, done by the loop when it ends"],
    ],
    load: () => import("../commands/pr.ts").then((m) => m.default),
  },
  {
    name: "config",
    worktree: true,
    plainOutput: true,
    summary: "Show each loop option's value here and where it comes from (flag, restart, config file, default)",
    usage: "wt-loop config [options] [--json]",
    examples: [
      ["wt-loop config", "every option, its value, and the file (or flag, or default) it comes from"],
      ["wt-loop config --max 5 --json", "what a start with --max 5 would use, as JSON"],
    ],
    load: () => import("../commands/config.ts").then((m) => m.default),
  },
  {
    name: "trust",
    worktree: true,
    plainOutput: true,
    summary: "Trust this worktree's .wt-loop.json, so the commands it sets (verify, notify, agent-cmd) may run",
    usage: "wt-loop trust [--show | --revoke]",
    examples: [
      ["wt-loop trust", "trust .wt-loop.json as it is now; a changed file needs trust again"],
      ["wt-loop trust --show", "every trusted file, and whether it changed since"],
      ["wt-loop trust --revoke", "stop trusting this worktree's .wt-loop.json"],
    ],
    load: () => import("../commands/trust.ts").then((m) => m.default),
  },
  {
    name: "doctor",
    summary: "Check what a loop here needs: git, the agent's CLI, the stories, a terminal, the loop's folder, disk space",
    usage: "wt-loop doctor [options] [--json]",
    examples: [
      ["wt-loop doctor", "one line per check, ✓ ! or ✗ with the fix; exit 0 when a loop can start"],
      ["wt-loop doctor --agent codex --terminal tmux", "what a start with these options would need"],
    ],
    load: () => import("../commands/doctor.ts").then((m) => m.default),
  },
  {
    name: "history",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "One row per iteration of the loop, with totals",
    usage: "wt-loop history [options]",
    examples: [
      ["wt-loop history", "every iteration of the current or last run"],
      ["wt-loop history --runs", "the archived runs of this worktree"],
      ["wt-loop history --json", "the same as JSON, reasons whole"],
    ],
    load: () => import("../commands/history.ts").then((m) => m.default),
  },
  {
    name: "log",
    quick: true,
    worktree: true,
    plainOutput: true,
    summary: "What the agent did, story by story: messages, tool calls, outcomes",
    usage: "wt-loop log [options]",
    examples: [
      ["wt-loop log | less -R", "the current or last run, page by page"],
      ["wt-loop log --story 2", "only story 2's iterations"],
      ["wt-loop log --iteration 3 --json", "iteration 3's events as JSON lines"],
    ],
    load: () =>
      oneShot()
        .then(() => import("../commands/log.ts"))
        .then((m) => m.default),
  },
  {
    name: "monitor",
    worktree: true,
    summary: "Follow the loop live from any terminal (Ctrl-C leaves it running)",
    usage: "wt-loop monitor [--story ID]",
    loopExitCodes: true,
    examples: [
      ["wt-loop monitor", "follow the loop; exits with its exit code"],
      ["wt-loop monitor --story 2", "only story 2's messages"],
    ],
    load: () => import("../commands/monitor.ts").then((m) => m.default),
  },
  {
    name: "list",
    quick: true,
    plainOutput: true,
    summary: "Every worktree of this repository with its loop, one line each",
    usage: "wt-loop list [--json]",
    examples: [
      ["wt-loop list", "every worktree: status, story, iteration, elapsed, cost, runner alive"],
      ["wt-loop list --json", "the same for programs"],
    ],
    // The worktrees read from git's files (worktree/worktree-files.ts); else `git worktree list` runs while list's modules load.
    prefetch: () =>
      Promise.all([import("../fleet/git-worktrees.ts"), import("../worktree/worktree-files.ts")]).then(([m, f]) =>
        m.prefetchGitWorktrees(process.cwd(), (cwd) => f.readWorktreeFiles(cwd)),
      ),
    load: () => import("../commands/list.ts").then((m) => m.default),
  },
  {
    name: "statusline",
    quick: true,
    plainOutput: true,
    summary: "One short line about this worktree's loop, for Claude Code's statusLine setting (its JSON on stdin)",
    usage: "wt-loop statusline",
    examples: [
      ['{"type":"command","command":"wt-loop statusline"}', "the statusLine entry of Claude Code's settings.json"],
      ['echo \'{"workspace":{"current_dir":"\'$PWD\'"}}\' | wt-loop statusline', "what Claude Code shows for this worktree"],
    ],
    load: () => import("../commands/statusline.ts").then((m) => m.default),
  },
  {
    name: "mcp",
    summary: "Serve every loop of this repository to MCP clients over stdio",
    usage: "wt-loop mcp",
    examples: [
      ["claude mcp add wt-loop -- wt-loop mcp", "register it with Claude Code"],
      ["wt-loop mcp", "speak MCP on stdin/stdout (for a client to start)"],
    ],
    load: () => import("../commands/mcp.ts").then((m) => m.default),
  },
  {
    name: "schema",
    summary: "Print the JSON Schema of the state file, the event log or the config file",
    usage: "wt-loop schema [state|events|config]",
    examples: [
      ["wt-loop schema", "the state file's JSON Schema"],
      ["wt-loop schema events > loop-event.schema.json", "one line of the event log"],
      ["wt-loop schema config", "what .wt-loop.json may hold (for editors)"],
    ],
    load: () => import("../commands/schema.ts").then((m) => m.default),
  },
  {
    name: "demo",
    summary: "See the whole tool work on a throwaway repository, inline",
    usage: "wt-loop demo",
    loopExitCodes: true,
    examples: [
      ["wt-loop demo", "a two-story change, a scripted agent, no account needed"],
      ["wt-loop demo > demo.txt", "the same as plain text, to read later"],
    ],
    load: () => import("../commands/demo.ts").then((m) => m.default),
  },
  {
    name: "help",
    summary: "Show help for wt-loop or one of its commands",
    usage: "wt-loop help [COMMAND]",
    examples: [
      ["wt-loop help", "every command"],
      ["wt-loop help start", "the options of start"],
    ],
    load: () => Promise.resolve({ meta: { name: "help" }, args: { command: { type: "positional", required: false, description: "A command" } } }),
  },
  {
    name: "completion",
    summary: "Print the tab completion script of bash, zsh or fish",
    usage: "wt-loop completion bash|zsh|fish",
    examples: [
      ["source <(wt-loop completion bash)", "in ~/.bashrc: commands, options, their values and change names complete"],
      ["wt-loop completion fish > ~/.config/fish/completions/wt-loop.fish", "fish loads it by itself"],
    ],
    load: () => import("../commands/completion.ts").then((m) => m.default),
  },
  {
    name: "demo-agent",
    summary: "The demo's scripted agent",
    usage: "wt-loop demo-agent",
    hidden: true,
    examples: [],
    load: () => import("../commands/demo-agent.ts").then((m) => m.default),
  },
];

export const commandNames = () => COMMANDS.filter((c) => !c.hidden).map((c) => c.name);
/** A loop, not `find`: the first call of a callback builtin compiles it, ~0.1M instructions of every start-up. */
export function findCommand(name: string): CommandInfo | undefined {
  for (const c of COMMANDS) if (c.name === name) return c;
  return undefined;
}

/** The exit codes, from the one table in errors.ts. */
const EXIT_MEANING: Record<string, string> = { usage: "usage or environment error", stopped: "stopped (by you, or a --max-cost/--max-tokens budget)" };
export const EXIT_CODES: [number, string][] = Object.entries(ExitCode).map(([name, code]) => [code, EXIT_MEANING[name] ?? name]);
