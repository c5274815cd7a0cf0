/**
 * `--audit` against the baseline (issue 34 part 3), in the same run: a small change whose task list forgot a
 * scenario — the task asks for a greeting (hello.txt) and a farewell (bye.txt), the tasks only for the
 * greeting. A scripted `claude` (stream-json, as the real one prints it) does what its story's tasks say and
 * nothing more; as the auditor it checks both scenarios in the tree. Without `--audit` the loop ends `done`
 * with the farewell scenario failing its check; with it, the gap is found, becomes a story and is
 * implemented. Reported: iterations, tokens and cost of each, and whether each scenario holds.
 * The tokens are the scripted agent's own measure (a quarter of the prompt's characters in, of its answer
 * out, at $3/$15 per million): what the audit adds in prompt size, not what a model would spend.
 * `bun scripts/bench/audit.ts` alone.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, git, judge, load, median, removeRepo, runAlone, RUNS, work } from "./shared.ts";

const TASK = "Greet when the tool starts (hello.txt says hello) and say goodbye when it ends (bye.txt says bye).";
const TASKS = "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 Write hello.txt saying hello\n";
const SCENARIOS: [string, string][] = [
  ["hello.txt", "hello"],
  ["bye.txt", "bye"],
];

/** The scripted `claude`: a real program on PATH, printing Claude Code's stream-json. */
function fakeClaude(): string {
  const dir = join(work, "audit-bin");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "claude");
  writeFileSync(
    file,
    `#!/usr/bin/env bun
import { existsSync, readFileSync, writeFileSync } from "node:fs";
const prompt = await Bun.stdin.text();
let final;
if (prompt.startsWith("You are the auditor")) {
  const holds = (f, w) => existsSync(f) && readFileSync(f, "utf8").trim() === w;
  const gaps = ${JSON.stringify(SCENARIOS)}.filter(([f, w]) => !holds(f, w)).map(([f, w]) => "GAP: write " + f + " saying " + w + " (scenario: " + f + " says " + w + ")");
  final = gaps.length ? "Not every scenario holds.\\n<audit>\\n" + gaps.join("\\n") + "\\n</audit>" : "Every scenario holds.\\n<audit>PASS</audit>";
} else {
  const story = /^## Your story: ([^.]+)\\. /m.exec(prompt)?.[1];
  const lines = readFileSync("tasks.md", "utf8").split("\\n");
  let on = false;
  const out = lines.map((l) => {
    if (l.startsWith("## ")) on = l.startsWith("## " + story + ".");
    const m = on && /^- \\[ \\] \\S+ write (\\S+) saying (\\w+)/i.exec(l);
    if (!m) return l;
    writeFileSync(m[1], m[2] + "\\n");
    return l.replace("- [ ]", "- [x]");
  });
  writeFileSync("tasks.md", out.join("\\n"));
  final = "Done.\\n<promise>COMPLETE</promise>";
}
const input = Math.ceil(prompt.length / 4), output = Math.ceil(final.length / 4) + 50;
const say = (o) => console.log(JSON.stringify(o));
say({ type: "system", subtype: "init", session_id: "s", model: "scripted" });
say({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: final }] }, session_id: "s" });
say({ type: "result", subtype: "success", is_error: false, num_turns: 1, duration_ms: 1, result: final, session_id: "s",
  usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, total_cost_usd: (input * 3 + output * 15) / 1e6 });
`,
  );
  chmodSync(file, 0o755);
  return dir;
}

interface Figures {
  status: string;
  iterations: number;
  audit_rounds: number;
  tokens: number;
  cost_usd: number;
  scenarios_holding: number;
}

function loopOnce(audit: boolean, bin: string, n: number): Figures {
  const repo = join(work, `audit-${audit ? "on" : "off"}-${n}`);
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "tasks.md"), TASKS);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  const args = [BIN, "start", TASK, "--plain", "--terminal", "inline", "--agent", "claude", "--on-complete", "keep", ...(audit ? ["--audit"] : [])];
  const r = Bun.spawnSync(args, { cwd: repo, env: { ...process.env, NO_COLOR: "1", PATH: `${bin}:${process.env.PATH}` }, stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
  const s = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
  const holding = SCENARIOS.filter(([f, w]) => existsSync(join(repo, f)) && readFileSync(join(repo, f), "utf8").trim() === w).length;
  removeRepo(repo);
  return {
    status: s.status,
    iterations: s.iterations.length,
    audit_rounds: s.iterations.filter((i: { kind?: string }) => i.kind === "audit").length,
    tokens: s.total_tokens,
    cost_usd: s.total_cost_usd,
    scenarios_holding: holding,
  };
}

export interface AuditBench {
  scenarios: number;
  without: Figures;
  with_audit: Figures;
}

const medianOf = (runs: Figures[]): Figures => ({
  ...runs[0]!,
  iterations: median(runs.map((r) => r.iterations)),
  tokens: median(runs.map((r) => r.tokens)),
  cost_usd: median(runs.map((r) => r.cost_usd)),
});

export function auditComparison(): AuditBench {
  const bin = fakeClaude();
  const off: Figures[] = [];
  const on: Figures[] = [];
  for (let i = 0; i < RUNS; i++) {
    off.push(loopOnce(false, bin, i));
    on.push(loopOnce(true, bin, i));
  }
  // The scripted agent is deterministic: every run must agree on the outcome (the figures are its medians).
  for (const runs of [off, on])
    if (runs.some((r) => r.status !== runs[0]!.status || r.scenarios_holding !== runs[0]!.scenarios_holding))
      throw new Error("the runs disagree on the outcome");
  const r = { scenarios: SCENARIOS.length, without: medianOf(off), with_audit: medianOf(on) };
  const row = (name: string, f: Figures) =>
    `  ${name.padEnd(14)} ${f.status.padEnd(6)} ${String(f.iterations).padStart(2)} iterations (${f.audit_rounds} audit)  ${String(f.tokens).padStart(6)} tokens  $${f.cost_usd.toFixed(4)}  scenarios holding ${f.scenarios_holding}/${SCENARIOS.length}`;
  console.log(
    `--audit: a change whose tasks forgot one of its ${SCENARIOS.length} scenarios, a scripted claude (median of ${RUNS}; tokens are the script's measure of its prompts)`,
  );
  console.log(row("without", r.without));
  console.log(row("--audit", r.with_audit));
  const found = r.with_audit.scenarios_holding === SCENARIOS.length && r.without.scenarios_holding < SCENARIOS.length;
  console.log(
    `  the audit closes the forgotten scenario: ${judge("--audit closes a forgotten scenario", found, `${r.with_audit.scenarios_holding}/${SCENARIOS.length} with, ${r.without.scenarios_holding}/${SCENARIOS.length} without`)}` +
      ` · cost ${(r.with_audit.tokens / Math.max(1, r.without.tokens)).toFixed(1)}× the tokens   load ${load()}`,
  );
  return r;
}

if (import.meta.main) await runAlone(auditComparison);
