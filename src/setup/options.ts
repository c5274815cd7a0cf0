/**
 * The loop's options, each declared once: its zod schema (rules and default) and, in `.meta()`, what
 * every other place needs — the value hint and help of the command line, the state field it is
 * kept in, whether a restart remembers it and whether a config file may set it. The command-line
 * flags, the help, options ↔ state, the restart note, the config file's JSON Schema and docs/cli.md
 * are all derived from this table (setup/option-table.ts).
 */
import { z } from "zod";
import { MAX_TIMER_MS } from "../proc/timer.ts";
import { AgentName, CheckpointKind, DoneCriteria, OnComplete, ReviewerName, SandboxNetwork } from "../state/choices.ts";
import type { State } from "../state/schema.ts";
import { TERMINAL_NAMES } from "../text/terminal-names.ts";

export interface OptionMeta {
  help: string;
  /** The value's placeholder in help (`--max <n>`); an enum's choices when absent. */
  hint?: string;
  /** Said instead of the default value, when the default is decided at run time. */
  defaultText?: string;
  /** Said after the default value: `ask; keep when not a TTY`. */
  defaultNote?: string;
  /** The state field that keeps the option's value. */
  state?: keyof State;
  /** A restart after stuck, stalled or stopped takes the remembered value. */
  remembered?: boolean;
  /** Where a config file may set it: both files (default), only the user's, or neither. */
  file?: "both" | "user" | "none";
  /** Not a flag: the command's positional argument. */
  positional?: boolean;
  /**
   * Its value is a command wt-loop runs: from a project file it runs only once the file is trusted,
   * and a restart takes it only from a state this user's own run wrote (setup/trust.ts).
   */
  runsCommand?: boolean;
}
const opt = <T extends z.ZodType>(schema: T, meta: OptionMeta): T => schema.meta({ ...meta }) as T;

/**
 * A number as people write it: `Number()` also reads `0x10` as 16 and `1_0`… not at all, so a
 * typo like `--max-cost 0x10` would be taken as $16. Anything else reads as NaN: "must be a number".
 */
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;
const decimal = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === "string" && v !== "" && !DECIMAL.test(v) ? Number.NaN : v), schema);

const int = (name: string, min: number) =>
  decimal(
    z.coerce
      .number({ error: `--${name} must be a number` })
      .int({ error: `--${name} must be a whole number` })
      .min(min, { error: `--${name} must be at least ${min}` }),
  );
const positive = (name: string, unitMs: number, unit: string) =>
  decimal(
    z.coerce
      .number({ error: `--${name} must be a number` })
      .positive({ error: `--${name} must be greater than 0` })
      .max(Math.floor(MAX_TIMER_MS / unitMs), {
        error:
          `--${name} must be at most ${Math.floor(MAX_TIMER_MS / unitMs)} ${unit} ` +
          `(about ${Math.floor(MAX_TIMER_MS / 86_400_000)} days, the longest timer wt-loop can set)`,
      }),
  );

/**
 * An option a restart remembers that can also be taken away: `none` (`--verify none`,
 * `--max-cost none`) clears the remembered (or configured) value, where any other value would only replace it.
 */
export const NONE = "none";
const removable = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === NONE ? undefined : v), schema.optional());

/** `--max-wait`: the most hours one iteration may wait for an agent's limit to pass. */
const MAX_WAIT_HOURS = 720;

/** `--parallel`: lanes at once, at most (each is an agent and a worktree; see the option's message). */
export const MAX_PARALLEL = 16;

const remembered = true;
const runsCommand = true;
export const LoopOptions = z.strictObject({
  task: opt(z.string().optional(), { help: "The task, in words", positional: true, state: "task", remembered, file: "none" }),
  change: opt(z.string().min(1, { error: "--change needs a change name" }).optional(), {
    hint: "name",
    help: "OpenSpec change to implement",
    defaultText: "the only active change with unfinished tasks",
    state: "change",
    remembered,
    file: "none",
  }),
  issue: opt(z.string().min(1, { error: "--issue needs an issue: 123, owner/repo#123 or its URL" }).optional(), {
    hint: "n|owner/repo#n|url",
    help: "A GitHub issue: its title and body are the task, its task list or sections the stories, written to .wt-loop/issue-N/tasks.md (docs/github.md)",
    state: "issue",
    remembered,
    file: "none",
  }),
  issues: opt(z.string().min(1, { error: "--issues needs a GitHub search, e.g. 'label:wt-loop'" }).optional(), {
    hint: "search",
    help: "One story per open issue this GitHub search finds (e.g. 'label:wt-loop'); `after #12` in an issue waits for #12 (docs/github.md)",
    state: "issue_search",
    remembered,
    file: "none",
  }),
  pr: opt(int("pr", 1).optional(), {
    hint: "n",
    help:
      "This loop's pull request: its failing checks and the reviews asking for changes become new stories, " +
      "run on its branch and pushed (implies --on-complete pr; docs/github.md)",
    file: "none",
  }),
  done: opt(DoneCriteria.optional(), { help: "Done criteria", defaultText: "tasks when a tasks.md is found, else manual", state: "done_criteria", remembered }),
  max: opt(int("max", 1).default(30), { hint: "n", help: "Maximum iterations (agent runs)", state: "max_iterations", remembered }),
  maxRetries: opt(int("max-retries", 1).default(3), { hint: "n", help: "Attempts per story before giving up", state: "max_retries", remembered }),
  parallel: opt(
    decimal(
      z.coerce
        .number({ error: "--parallel must be a number" })
        .int({ error: "--parallel must be a whole number" })
        .min(1, { error: "--parallel must be at least 1 (1 runs the stories one after another)" })
        .max(MAX_PARALLEL, {
          error:
            `--parallel must be at most ${MAX_PARALLEL} (each lane is an agent on your one account and a worktree: ` +
            `more at once mostly wait on the account's rate limit)`,
        }),
    ).default(1),
    {
      hint: "n",
      help: "Stories run at once, each in its own worktree, integrated one at a time (needs --checkpoint branch and --done tasks; docs/parallel.md)",
      state: "parallel",
      remembered,
    },
  ),
  stallThreshold: opt(int("stall-threshold", 1).default(2), {
    hint: "n",
    help: "Consecutive no-progress iterations before stalled",
    state: "stall_threshold",
    remembered,
  }),
  iterationTimeout: opt(positive("iteration-timeout", 60_000, "minutes").default(45), {
    hint: "min",
    help: "Wall-clock limit of one agent run, in minutes",
    state: "iteration_timeout_min",
    remembered,
  }),
  commandTimeout: opt(positive("command-timeout", 1000, "seconds").default(30), {
    hint: "sec",
    help: "Limit for each git/openspec command, in seconds",
    state: "command_timeout_sec",
    remembered,
  }),
  // `demo` is the demo's own agent: it works as a value but is not offered.
  agent: opt(AgentName.default("claude"), { hint: "claude|codex|gemini|command", help: "Agent CLI to run", state: "agent", remembered }),
  agentCmd: opt(z.string().min(1, { error: "--agent-cmd needs a command" }).optional(), {
    hint: "cmd",
    help: "Program run by --agent command (prompt on stdin; run with sh -c)",
    state: "agent_cmd",
    remembered,
    runsCommand,
  }),
  model: opt(z.string().min(1).optional(), {
    hint: "name",
    help: "Model passed through to the agent",
    defaultText: "the agent's own",
    state: "model",
    remembered,
  }),
  escalate: opt(removable(z.string().regex(/^[^,\s]+(,[^,\s]+)*$/, { error: "--escalate needs model names separated by commas, e.g. sonnet,opus" })), {
    hint: "model,…",
    help: "Models to climb, one step per rejected attempt at a story (each story starts at the first)",
    defaultText: "--model for every attempt",
    state: "escalate",
    remembered,
  }),
  checkpoint: opt(CheckpointKind.default("branch"), { help: "Checkpoint strategy", state: "checkpoint", remembered }),
  onComplete: opt(OnComplete.default("ask"), {
    help: "What to do with the checkpoint branch at the end (pr: keep it, push it and open its pull request)",
    defaultNote: "keep when not a TTY",
    state: "on_complete",
    remembered,
  }),
  // Where a window opens is the person's choice, not the project's: only the user's file may set it.
  terminal: opt(z.string().default("auto"), {
    hint: "auto|NAME|inline",
    help: `Where the loop runs: auto, inline (this terminal), ${TERMINAL_NAMES.join(", ")}, or any program taking -e`,
    state: "terminal",
    file: "user",
  }),
  notify: opt(removable(z.string().min(1, { error: "--notify needs a command" })), {
    hint: "cmd",
    help: "Command run (sh -c) when the loop ends or waits for you; WT_LOOP_STATUS, WT_LOOP_STATE… in its environment",
    state: "notify",
    remembered,
    runsCommand,
  }),
  verify: opt(removable(z.string().min(1, { error: "--verify needs a command" })), {
    hint: "cmd",
    help: "Command run (sh -c) after each COMPLETE; a non-zero exit rejects the attempt",
    defaultText: "none",
    state: "verify",
    remembered,
    runsCommand,
  }),
  verifyTimeout: opt(positive("verify-timeout", 60_000, "minutes").default(10), {
    hint: "min",
    help: "Limit of one --verify run, in minutes",
    state: "verify_timeout_min",
    remembered,
  }),
  review: opt(removable(ReviewerName), {
    hint: "claude|codex|gemini|command",
    help: "A second agent reviews each COMPLETE (after --verify) and must approve it; its CHANGES reject the attempt",
    defaultText: "none",
    state: "review",
    remembered,
  }),
  reviewCmd: opt(removable(z.string().min(1, { error: "--review-cmd needs a command" })), {
    hint: "cmd",
    help: "Program run by --review command (prompt on stdin; run with sh -c)",
    state: "review_cmd",
    remembered,
    runsCommand,
  }),
  reviewModel: opt(removable(z.string().min(1, { error: "--review-model needs a model name" })), {
    hint: "name",
    help: "Model passed through to the reviewer",
    defaultText: "the reviewer's own",
    state: "review_model",
    remembered,
  }),
  reviewTimeout: opt(positive("review-timeout", 60_000, "minutes").default(15), {
    hint: "min",
    help: "Limit of one review run, in minutes",
    state: "review_timeout_min",
    remembered,
  }),
  audit: opt(z.boolean().default(false), {
    help: "Once every story is accepted, a fresh agent checks the whole change against its goal; the gaps it finds become stories and the loop goes on",
    state: "audit",
    remembered,
  }),
  auditAgent: opt(removable(ReviewerName), {
    hint: "claude|codex|gemini|command",
    help: "The auditor of --audit",
    defaultText: "the --review agent, else --agent",
    state: "audit_agent",
    remembered,
  }),
  auditCmd: opt(removable(z.string().min(1, { error: "--audit-cmd needs a command" })), {
    hint: "cmd",
    help: "Program run by --audit-agent command (prompt on stdin; run with sh -c)",
    state: "audit_cmd",
    remembered,
    runsCommand,
  }),
  auditModel: opt(removable(z.string().min(1, { error: "--audit-model needs a model name" })), {
    hint: "name",
    help: "Model passed through to the auditor",
    defaultText: "the chosen agent's model",
    state: "audit_model",
    remembered,
  }),
  auditRounds: opt(int("audit-rounds", 1).default(2), {
    hint: "n",
    help: "Audit rounds at most; the gaps of the last are implemented without another audit",
    state: "audit_rounds",
    remembered,
  }),
  maxCost: opt(
    removable(decimal(z.coerce.number({ error: "--max-cost must be a number (US dollars)" }).positive({ error: "--max-cost must be greater than 0" }))),
    {
      hint: "usd",
      help: "Stop the loop (exit 4) once the agent's reported cost reaches this many US dollars (claude only)",
      state: "max_cost_usd",
      remembered,
    },
  ),
  maxTokens: opt(removable(int("max-tokens", 1)), {
    hint: "n",
    help: "Stop the loop (exit 4) once the agent's tokens reach this many",
    state: "max_tokens",
    remembered,
  }),
  maxWait: opt(
    decimal(
      z.coerce
        .number({ error: "--max-wait must be a number" })
        .positive({ error: "--max-wait must be greater than 0" })
        .max(MAX_WAIT_HOURS, { error: `--max-wait must be at most ${MAX_WAIT_HOURS} hours (${MAX_WAIT_HOURS / 24} days)` }),
    ).default(8),
    {
      hint: "hours",
      help: "Hours one iteration may wait in all for an agent that hit a usage or rate limit, before the loop gives up",
      state: "max_wait_hours",
      remembered,
    },
  ),
  // On from any layer (a flag, either file, the remembered run): only a flag turns it off (setup/config.ts).
  sandbox: opt(z.boolean().default(false), {
    help:
      "Run the agent, --verify and --notify in an OS sandbox: writes only the worktree, its git dirs and the agent's own state; " +
      "network only the agent's API host",
    state: "sandbox",
    remembered,
  }),
  // What the sandbox lets through is the user's choice: a cloned repository's file must not widen it.
  sandboxNetwork: opt(SandboxNetwork.default("filtered"), {
    help: "The sandbox's network: filtered (the agent's API host and --sandbox-allow only) or open",
    state: "sandbox_network",
    file: "user",
  }),
  sandboxAllow: opt(z.string().min(1, { error: "--sandbox-allow needs host[:port],…" }).optional(), {
    hint: "host[:port],…",
    help: "More hosts the sandbox may reach (port 443 when none is given)",
    state: "sandbox_allow",
    file: "user",
  }),
  sandboxDenyRead: opt(z.string().min(1, { error: "--sandbox-deny-read needs path,…" }).optional(), {
    hint: "path,…",
    help: "More paths the sandbox may not read (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh and ~/.netrc never are)",
    state: "sandbox_deny_read",
  }),
  // Widens what goes in (a token named here is readable inside): a cloned repository's file must not set it.
  sandboxEnv: opt(z.string().min(1, { error: "--sandbox-env needs NAME,…" }).optional(), {
    hint: "NAME,…",
    help: "More environment variables passed into the sandbox (NAME or PREFIX_*); PATH, HOME, LANG, TERM… and the agent's own always are",
    state: "sandbox_env",
    file: "user",
  }),
  issueSync: opt(z.boolean().default(false), {
    help: "Write progress back to the issue: its boxes ticked as stories are accepted, one comment with the receipt at the end (with --issue or --issues)",
    state: "issue_sync",
    remembered,
  }),
  watch: opt(z.boolean().default(false), {
    help:
      "With --on-complete pr: after the push, wait for the pull request's checks; " +
      "failing checks and requested changes become stories, run and pushed again (docs/github.md)",
    state: "watch",
    remembered,
  }),
  dryRun: opt(z.boolean().default(false), { help: "Print the plan and exit, writing nothing", file: "none" }),
});
export type LoopOptions = z.infer<typeof LoopOptions>;
export type OptionKey = keyof LoopOptions;
