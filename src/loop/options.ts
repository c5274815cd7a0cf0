/**
 * The loop's options (SPEC §2): citty parses the command line, this schema validates it. Every
 * rule and default lives here, so `start`, `run` and the state file agree.
 */
import { z } from "zod";
import { AgentName, CheckpointKind, DoneCriteria, OnComplete } from "../state/schema.ts";

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
/** The longest delay a JavaScript timer can wait; a longer one fires at once (and would kill at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const positive = (name: string, unitMs: number, unit: string) =>
  decimal(
    z.coerce
      .number({ error: `--${name} must be a number` })
      .positive({ error: `--${name} must be greater than 0` })
      .max(Math.floor(MAX_TIMER_MS / unitMs), {
        error: `--${name} must be at most ${Math.floor(MAX_TIMER_MS / unitMs)} ${unit} (about 24 days, the longest timer wt-loop can set)`,
      }),
  );

/**
 * An option a restart remembers that can also be taken away: `none` (`--verify none`,
 * `--max-cost none`) clears the remembered value, where any other value would only replace it.
 */
const removable = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "none" ? undefined : v), schema.optional());

export const LoopOptions = z.strictObject({
  task: z.string().optional(),
  change: z.string().min(1, { error: "--change needs a change name" }).optional(),
  done: DoneCriteria.optional(),
  max: int("max", 1).default(30),
  maxRetries: int("max-retries", 1).default(3),
  stallThreshold: int("stall-threshold", 1).default(2),
  iterationTimeout: positive("iteration-timeout", 60_000, "minutes").default(45),
  commandTimeout: positive("command-timeout", 1000, "seconds").default(30),
  agent: AgentName.default("claude"),
  agentCmd: z.string().min(1, { error: "--agent-cmd needs a command" }).optional(),
  model: z.string().min(1).optional(),
  checkpoint: CheckpointKind.default("branch"),
  onComplete: OnComplete.default("ask"),
  terminal: z.string().default("auto"),
  notify: removable(z.string().min(1, { error: "--notify needs a command" })),
  verify: removable(z.string().min(1, { error: "--verify needs a command" })),
  verifyTimeout: positive("verify-timeout", 60_000, "minutes").default(10),
  maxCost: removable(decimal(z.coerce.number({ error: "--max-cost must be a number (US dollars)" }).positive({ error: "--max-cost must be greater than 0" }))),
  maxTokens: removable(int("max-tokens", 1)),
  maxWait: decimal(
    z.coerce
      .number({ error: "--max-wait must be a number" })
      .positive({ error: "--max-wait must be greater than 0" })
      .max(720, { error: "--max-wait must be at most 720 hours (30 days)" }),
  ).default(8),
  dryRun: z.boolean().default(false),
});
export type LoopOptions = z.infer<typeof LoopOptions>;
