/**
 * What a loop here needs, one line per thing: `wt-loop doctor` shows every line, and `start` and
 * `run` refuse on the first ✗ with that same line, before anything is written. A new check is one
 * entry in CHECKS (setup/doctor-checks.ts).
 */
import { z } from "zod";
import { UserError } from "../errors.ts";
import type { State } from "../state/schema.ts";
import type { Worktree } from "../worktree/worktree.ts";
import type { Layered } from "./config.ts";
import type { LoopOptions } from "./options.ts";
import { described } from "../state/described.ts";

/** One line of `doctor`: ✓ (ok) ready, ! (warn) works but something is missing or will be asked, ✗ (fail) a loop cannot start. */
export const CheckLine = z.object({
  id: described(
    z.string(),
    "What was checked: git, worktree, agent, reviewer, auditor, sandbox, openspec, stories, gh, terminal, .claude, disk, trust (more may come)",
  ),
  mark: described(z.enum(["ok", "warn", "fail"]), "ok: ready; warn: works, but see the text; fail: a loop cannot start until it is fixed"),
  text: described(z.string(), "What was found, or what is wrong"),
  fix: described(z.string().nullable(), "What to do about it (an install command, a flag); null when nothing needs doing"),
});
export type CheckLine = z.infer<typeof CheckLine>;
export type Mark = CheckLine["mark"];

/** `wt-loop doctor --json`. */
export const DoctorReport = z.object({
  ready: described(z.boolean(), "True when a loop can start here (no check failed): doctor's exit code is 0 then, else 1"),
  checks: described(z.array(CheckLine), "One entry per check that applies here, in the order shown"),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

/** Who asks: `doctor` shows everything; a start or a run is refused on a ✗ that concerns it. */
export type Purpose = "doctor" | "start" | "run";

export interface DoctorInput {
  purpose: Purpose;
  cwd: string;
  env: Record<string, string | undefined>;
  /** The worktree the command acts on, or the reason there is none (not a repository, git missing). */
  worktree: Worktree | { error: string };
  /** The options as that start would use them (flags over config files over a restart's); null without a worktree. */
  opts: LoopOptions | null;
  layered: Layered | null;
  previous: State | null;
}

/** A check answers null when it does not apply (no agent to look for without options, a dry run's launcher). */
export interface Check {
  id: string;
  run(input: DoctorInput): Promise<Omit<CheckLine, "id"> | null> | Omit<CheckLine, "id"> | null;
}

export async function diagnose(input: DoctorInput, checks: Check[]): Promise<CheckLine[]> {
  // Independent of each other: asked at once (each may start a process: git, the agent's --version).
  const lines = await Promise.all(
    checks.map(async (c) => {
      const r = await c.run(input);
      return r ? { id: c.id, ...r } : null;
    }),
  );
  return lines.filter((l): l is CheckLine => l !== null);
}

export const canStart = (lines: CheckLine[]) => lines.every((l) => l.mark !== "fail");

/** A line's words without its mark: what `doctor` prints after ✗, and what a refused start says. */
export const lineText = (l: Pick<CheckLine, "text" | "fix">) => (l.fix ? `${l.text} Fix: ${l.fix}` : l.text);

/** A start or a run: refused with the first ✗'s line, as `doctor` shows it. */
export function refuseUnready(lines: CheckLine[]): void {
  const failed = lines.find((l) => l.mark === "fail");
  if (failed) throw new UserError(lineText(failed));
}

const MARKS: Record<Mark, string> = { ok: "✓", warn: "!", fail: "✗" };

export function renderDoctor(lines: CheckLine[]): string {
  const width = Math.max(...lines.map((l) => l.id.length));
  const out = lines.map((l) => `${MARKS[l.mark]} ${l.id.padEnd(width)}  ${lineText(l)}`);
  out.push("", canStart(lines) ? "A loop can start here." : "A loop cannot start here until each ✗ is fixed.");
  return out.join("\n");
}
