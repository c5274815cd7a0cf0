/**
 * Tab completion's candidates (docs/install.md "Tab completion"): the shell scripts of
 * `wt-loop completion` hand the words typed so far to the hidden `wt-loop __complete`, which answers
 * from the same sources as the help — the command catalog, each command's citty args, the options
 * table's choices — and the worktree's OpenSpec changes. Asking the binary keeps a sourced script right
 * after an upgrade: nothing is baked into it.
 */
import type { ArgsDef } from "citty";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { FLAGS } from "../setup/option-table.ts";
import { TERMINAL_NAMES } from "../text/terminal-names.ts";
import { COMMANDS, findCommand } from "./catalog.ts";
import { print } from "../term/print.ts";

export interface Candidate {
  value: string;
  description?: string;
}

/** One short line for a menu: the first sentence, cut at 70 characters. */
const short = (s: string | undefined) => {
  if (!s) return undefined;
  const first = s.split(/(?<=\.)\s/)[0]!.replace(/\.$/, "");
  return first.length > 70 ? `${first.slice(0, 69)}…` : first;
};

/** A value hint such as `claude|codex|gemini|command` or `state|events|config` is a closed list. */
const choicesOf = (hint: unknown): string[] | null => (typeof hint === "string" && /^[a-z0-9-]+(\|[a-z0-9-]+)+$/.test(hint) ? hint.split("|") : null);

/** The worktree's active OpenSpec changes (the folders of openspec/changes/ but the archive). */
function changeNames(worktree: string): Candidate[] {
  try {
    return readdirSync(join(worktree, "openspec", "changes"), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== "archive")
      .map((e) => ({ value: e.name, description: "OpenSpec change" }));
  } catch {
    return [];
  }
}

/**
 * Bash splits `--agent=co` into `--agent`, `=`, `co` (`=` is in COMP_WORDBREAKS); zsh and fish keep
 * it one word. Joined back here, every shell is one case.
 */
function joinEquals(words: string[]): { words: string[]; split: boolean } {
  const out: string[] = [];
  let split = false;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "=" && out.length && out[out.length - 1]!.startsWith("--")) {
      out[out.length - 1] += `=${words[i + 1] ?? ""}`;
      i++;
      split = true;
    } else out.push(words[i]!);
  }
  return { words: out, split };
}

export interface CompleteContext {
  /** The worktree's root (or the current directory outside one), for the change names. */
  worktree: () => Promise<string>;
}

/**
 * The candidates for the last of `typed` (the words after `wt-loop`, the last one being completed,
 * perhaps empty), matching what was typed of it. With `bashEquals`, a `--flag=value` word gets bare
 * values: bash replaces only what follows the `=`.
 */
export async function complete(typed: string[], ctx: CompleteContext, bashEquals = false): Promise<Candidate[]> {
  const { words, split } = joinEquals(typed.length ? typed : [""]);
  const current = words[words.length - 1]!;
  const before = words.slice(0, -1);
  const match = (cands: Candidate[], prefix = current) => cands.filter((c) => c.value.startsWith(prefix));

  if (before.length === 0) {
    const commands = COMMANDS.filter((c) => !c.hidden).map((c) => ({ value: c.name, description: c.summary }));
    const flags = [
      { value: "--help", description: "Show help" },
      { value: "--version", description: "Print the version, commit and platform" },
    ];
    return match(current.startsWith("-") ? flags : commands);
  }
  const info = findCommand(before[0]!);
  if (!info || info.hidden) return [];
  if (before.includes("--")) return []; // after `--`, the words are the task's
  const cmd = await info.load();
  const args: ArgsDef = (typeof cmd.args === "function" ? await cmd.args() : await cmd.args) ?? {};
  const flags = Object.entries(args).filter(([, d]) => d.type !== "positional");
  const valuesOf = async (name: string): Promise<Candidate[] | null> => {
    const def = args[name];
    if (!def || def.type === "boolean" || def.type === "positional") return null;
    if (name === "change") return changeNames(await ctx.worktree());
    if (name === "terminal") return ["auto", "inline", ...TERMINAL_NAMES].map((value) => ({ value }));
    const option = FLAGS.find((o) => o.flag === name);
    // The hint first: it is what help shows (`--agent` has a `demo` the demo alone uses).
    return (choicesOf("valueHint" in def ? def.valueHint : undefined) ?? option?.choices ?? []).map((value) => ({ value }));
  };

  // `--agent=co`
  const eq = /^--([^=]+)=(.*)$/.exec(current);
  if (eq) {
    const values = (await valuesOf(eq[1]!)) ?? [];
    const fitting = match(values, eq[2]);
    return bashEquals && split ? fitting : fitting.map((c) => ({ ...c, value: `--${eq[1]}=${c.value}` }));
  }
  // `--agent co`
  const prev = before[before.length - 1]!;
  if (before.length > 1 && prev.startsWith("--") && !prev.includes("=")) {
    const values = await valuesOf(prev.slice(2));
    if (values) return match(values);
  }
  if (current.startsWith("-")) {
    const given = new Set(before.filter((w) => w.startsWith("--")).map((w) => w.slice(2).split("=")[0]));
    return match([
      ...flags.filter(([name]) => !given.has(name)).map(([name, d]) => ({ value: `--${name}`, description: short(d.description) })),
      { value: "--help", description: "Show this command's help" },
    ]);
  }
  // A positional: the help command takes a command; others may name their choices (`schema`).
  if (info.name === "help") return before.length === 1 ? match(COMMANDS.filter((c) => !c.hidden).map((c) => ({ value: c.name, description: c.summary }))) : [];
  const positional = Object.values(args).find((d) => d.type === "positional");
  const choices = choicesOf(positional && "valueHint" in positional ? positional.valueHint : undefined);
  return choices ? match(choices.map((value) => ({ value }))) : [];
}

/**
 * `wt-loop __complete SHELL -- WORDS…`, run by cli.ts before the catalog (a hidden command the
 * scripts of text/completion-scripts.ts call): never an error on the command line, no candidates instead.
 */
export async function completeMain(rawArgs: string[]): Promise<void> {
  const sep = rawArgs.indexOf("--");
  const shell = rawArgs[0];
  const words = sep >= 0 ? rawArgs.slice(sep + 1) : [];
  const worktree = async () => {
    try {
      return (await (await import("../worktree/worktree.ts")).resolveWorktree()).path;
    } catch {
      return process.cwd();
    }
  };
  try {
    const found = await complete(words, { worktree }, shell === "bash");
    // bash shows values only; zsh and fish read `value<TAB>description`.
    const lines = found.map((c) => (shell === "bash" || !c.description ? c.value : `${c.value}\t${c.description.replace(/\s+/g, " ")}`));
    if (lines.length) print(lines.join("\n"));
  } catch {
    // A broken worktree or an unreadable folder: no candidates, and the shell falls back to files.
  }
}
