/**
 * Help text in the shape git, gh and cargo use: usage, arguments, options in one aligned column,
 * examples, exit codes. Plain text unless stdout is a colour terminal; lines wrap to the terminal
 * (80 columns when piped) and never end in spaces.
 */
import type { ArgsDef } from "citty";
import { type CommandInfo, COMMANDS, EXIT_CODES } from "./catalog.ts";
import { paint, stdoutInfo } from "../term/color.ts";
import { wrapLine } from "../text/width.ts";

export interface HelpStyle {
  color: boolean;
  width: number;
}

export function helpStyle(out: { isTTY?: boolean; columns?: number } = stdoutInfo(), env: Record<string, string | undefined> = process.env): HelpStyle {
  const color = Boolean(out.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
  return { color, width: out.isTTY && out.columns ? Math.max(60, Math.min(out.columns, 120)) : 80 };
}

/** Two columns: names padded to a common width (at most 30), text wrapped after it. */
export function columns(rows: [string, string][], width: number): string[] {
  const col = Math.min(26, Math.max(...rows.map(([n]) => n.length))) + 4;
  const out: string[] = [];
  for (const [name, text] of rows) {
    const lines = wrapLine(text, Math.max(20, width - col));
    if (!text) out.push(`  ${name}`);
    else if (name.length + 4 > col) out.push(`  ${name}`, ...lines.map((l) => " ".repeat(col) + l));
    else out.push(`  ${name.padEnd(col - 2)}${lines[0]}`, ...lines.slice(1).map((l) => " ".repeat(col) + l));
  }
  return out;
}

export function rootHelp(version: string, s: HelpStyle): string {
  const h = paint(s.color, "1");
  const visible = COMMANDS.filter((c) => !c.hidden);
  return [
    `wt-loop ${version} — run a coding agent in a loop inside a git worktree until the change is done`,
    "",
    `${h("Usage:")} wt-loop <command> [options]`,
    "",
    h("Commands:"),
    ...columns(
      visible.map((c) => [c.name, c.summary]),
      s.width,
    ),
    "",
    h("Options:"),
    ...columns(
      [
        ["-h, --help", "Show help (also: wt-loop help <command>)"],
        ["-v, -V, --version", "Print the version"],
      ],
      s.width,
    ),
    "",
    h("Examples:"),
    ...columns(
      [
        ["wt-loop demo", "see a whole loop on a throwaway repository"],
        ["wt-loop start", "implement this worktree's change in a new terminal"],
        ["wt-loop log", "what the agent did, story by story"],
      ],
      s.width,
    ),
    "",
    `Run 'wt-loop help <command>' for a command's options.`,
  ].join("\n");
}

export function commandHelp(info: CommandInfo, args: ArgsDef, s: HelpStyle): string {
  const h = paint(s.color, "1");
  const positional: [string, string][] = [];
  const options: [string, string][] = [];
  for (const [name, def] of Object.entries(args)) {
    const text = def.description ?? "";
    if (def.type === "positional") positional.push([name.toUpperCase(), text]);
    else {
      const alias =
        "alias" in def && def.alias
          ? [def.alias]
              .flat()
              .map((a) => `-${a}, `)
              .join("")
          : "";
      const hint = def.type === "boolean" ? "" : ` <${("valueHint" in def && def.valueHint) || name}>`;
      options.push([`${alias}--${name}${hint}`, text]);
    }
  }
  options.push(["-h, --help", "Show this help"]);
  const lines = [info.summary, "", `${h("Usage:")} ${info.usage}`, ""];
  if (positional.length) lines.push(h("Arguments:"), ...columns(positional, s.width), "");
  lines.push(h("Options:"), ...columns(options, s.width), "");
  if (info.examples.length) lines.push(h("Examples:"), ...columns(info.examples, s.width), "");
  if (info.loopExitCodes)
    lines.push(
      h("Exit codes:"),
      ...columns(
        EXIT_CODES.map(([c, w]) => [String(c), w]),
        s.width,
      ),
      "",
    );
  return lines.join("\n").trimEnd();
}
