/**
 * A repository as the selection screen finds it: an OpenSpec change made by the real `openspec` CLI
 * (one task of three ticked, two requirements with scenarios), a plain tasks.md, and a linked
 * worktree `other` whose loop ended stuck.
 */
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, testPath } from "./cli.ts";
import { git, makeRepo, write } from "./repo.ts";
import { sampleState } from "./state.ts";
import type { Frame, Line } from "../../src/screen/frame.ts";

export const CHANGE_TASKS = "# Tasks\n\n## 1. Greeting\n- [x] 1.1 Write greet.txt\n- [ ] 1.2 Say hello in it\n\n## 2. Farewell\n- [ ] 2.1 Write bye.txt\n";
export const SPEC =
  "## ADDED Requirements\n\n### Requirement: Greeting\nThe tool SHALL greet.\n\n#### Scenario: Greets by name\n- **GIVEN** a name\n- **WHEN** it runs\n- **THEN** it prints hello\n\n" +
  "### Requirement: Farewell\nThe tool SHALL say bye.\n\n#### Scenario: Says bye\n- **WHEN** asked\n- **THEN** it prints bye\n";
export const PLAIN_TASKS = "# Chores\n\n## 1. Tidy\n- [ ] 1.1 Sort the imports\n";

export function openspecCli(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync([join(NODE_BIN, "openspec"), ...args], { cwd, env: { ...process.env, OPENSPEC_TELEMETRY: "0" }, stdin: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openspec ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/**
 * The environment the selection's loader is given: the real openspec CLI on its PATH (the loader asks
 * it which changes exist). Passed, never put on this process's PATH, where it would leak into every
 * later test file (their `claude` would be the real one in node_modules/.bin).
 */
export const OPENSPEC_ENV: Record<string, string | undefined> = { ...process.env, PATH: testPath({ openspec: true }) };

export function selectionRepo(): { main: string; other: string } {
  const main = makeRepo({ "docs/tasks.md": PLAIN_TASKS });
  openspecCli(main, "init", "--tools", "none");
  openspecCli(main, "new", "change", "add-greeting", "--json");
  const d = "openspec/changes/add-greeting";
  write(main, {
    [`${d}/proposal.md`]: "# Add greeting\n\n## Why\nPeople like to be greeted.\n",
    [`${d}/specs/greeting/spec.md`]: SPEC,
    [`${d}/tasks.md`]: CHANGE_TASKS,
  });
  git(main, "add", "-A");
  git(main, "commit", "-q", "-m", "change");
  const other = join(main, "..", "other");
  git(main, "worktree", "add", "-q", "-b", "other", other);
  mkdirSync(join(other, ".claude"), { recursive: true });
  const state = sampleState({
    worktree_name: "other",
    worktree_path: other,
    status: "stuck",
    completion: "keep",
    reason: "story 2 failed 3 times",
    total_cost_usd: 1.25,
  });
  writeFileSync(join(other, ".claude/loop-state.json"), JSON.stringify(state));
  return { main, other };
}

export const lineText = (l: Line) => l.map((s) => s.text).join("");
/** Everything a frame shows, as text, for assertions. */
export function frameText(f: Frame): string {
  return [
    ...f.header.map(lineText),
    `[${f.list.title}]`,
    ...f.list.rows.map((r) => `${r.selected ? ">" : " "}${r.glyph} ${r.title}  ${r.detail}`),
    f.tabs.map((t) => (t.active ? `<${t.title}>` : t.title)).join(" "),
    ...f.body.lines.map(lineText),
    `-- ${lineText(f.footer)}`,
    ...(f.overlay ? [`[${f.overlay.title}]`, ...f.overlay.lines.map(lineText)] : []),
  ].join("\n");
}
