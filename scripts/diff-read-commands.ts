/**
 * The read-only commands of two builds, compared as a user sees them: `bun scripts/diff-read-commands.ts
 * <baseline-binary> <candidate-binary>`. Many loops (states of ours and of the seed's format, hand-written
 * edge cases and seeded random ones, in real git repositories) are shown by `status`, `history`, `log`,
 * `list` and `statusline`, piped and in terminals of 40, 80 and 200 columns, with the clock fixed
 * (scripts/diff-read/clock.ts); stdout, stderr, the exit code and the loop's files after the run must be
 * the same byte for byte. Each difference is printed with the case that made it, kept on disk; exit 1.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { usageError } from "./args.ts";
import { edgeCases, randomCases, type Case } from "./diff-read/cases.ts";
import { fixedClock } from "./diff-read/clock.ts";
import { commands, describeCommand, normalize, runCommand, type Command, type Seen } from "./diff-read/run.ts";
import { endAll, layOut, sharedProcesses, startRunner } from "./diff-read/world.ts";

const USAGE = `
Usage: bun scripts/diff-read-commands.ts <baseline-binary> <candidate-binary> [options]

Runs wt-loop's read-only commands (status, status --json, history, history --json, history --runs, log,
log --json, list, list --json, statusline) of both binaries over the same loops and compares stdout,
stderr, exit codes and the files left, byte for byte. Exits 1 when anything differs. The clock is fixed
with libfaketime (apt-get install faketime); without it, times and durations are masked before comparing.

  --seed N      seed of the random cases and of the edge cases' filler (default 1); the same seed, the same cases
  --cases N     random cases besides the hand-written ones (default 60)
  --only RE     only the cases whose name matches RE (e.g. "seed-format|e0[1-5]")
  --no-tty      piped runs only (no terminals of 40/80/200 columns)
  --keep        keep every case's folder, not only those that differ
  --real-clock  do not fix the clock with libfaketime (what happens where it is missing): the clock's traces are masked
  --work DIR    lay the cases out in a new folder inside DIR (default: the system's temporary folder)
`;

function options() {
  try {
    return parseArgs({
      allowPositionals: true,
      strict: true,
      options: {
        seed: { type: "string", default: "1" },
        cases: { type: "string", default: "60" },
        only: { type: "string" },
        "no-tty": { type: "boolean", default: false },
        keep: { type: "boolean", default: false },
        work: { type: "string" },
        "real-clock": { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err));
  }
}

const { values: o, positionals } = options();
if (o.help) {
  console.log(USAGE.trim());
  process.exit(0);
}
if (positionals.length !== 2) usageError("Give two binaries: the baseline and the candidate.");
const bins = positionals.map((p) => {
  try {
    return realpathSync(p);
  } catch {
    return usageError(`No such binary: ${p}`);
  }
}) as [string, string];
const seed = Number(o.seed);
const count = Number(o.cases);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(count) || count < 0) usageError("--seed and --cases take whole numbers.");

const only = o.only ? new RegExp(o.only) : null;
const cases = [...edgeCases(seed), ...randomCases(seed, count)].filter((c) => !only || only.test(c.name));
const clock = o["real-clock"] ? null : fixedClock();
const root = mkdtempSync(join(o.work ?? tmpdir(), `wt-loop-diff-${seed}-`));
const shared = sharedProcesses(root);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(sig, () => {
    endAll();
    process.exit(130);
  });
const home = join(root, "home");
mkdirSync(join(home, ".config"), { recursive: true });

console.log(`baseline  ${bins[0]}\ncandidate ${bins[1]}`);
console.log(`seed ${seed}: ${cases.length} cases, in ${root}`);
console.log(
  clock
    ? "clock: fixed by libfaketime at 2026-11-22T12:00:00Z (every run reads the same instant)"
    : `clock: NOT fixed (${o["real-clock"] ? "--real-clock" : "libfaketime not found: apt-get install faketime"}); times of day, ISO times and durations are masked before comparing`,
);

let differences = 0;
let runs = 0;
const started = performance.now();
try {
  for (const [i, c] of cases.entries()) {
    const found = await runCase(c);
    differences += found;
    process.stderr.write(`\r${i + 1}/${cases.length} cases, ${differences} differences `);
  }
} finally {
  shared.stop();
  process.stderr.write("\n");
}
console.log(`${runs} runs in ${((performance.now() - started) / 1000).toFixed(0)} s: ${differences ? `${differences} DIFFERENCES` : "no difference"}`);
if (!differences && !o.keep) rmSync(root, { recursive: true, force: true });
process.exit(differences ? 1 : 0);

/** Runs every command of `c` with both binaries, each run on the case's files laid anew; prints each difference. */
async function runCase(c: Case): Promise<number> {
  const laid = layOut(root, c);
  const ps = c.env?.WT_LOOP_PROC === "ps";
  const owners = c.ownRunner ? await Promise.all(bins.map((b) => startRunner(b, laid.worktree, shared.sleeper, ps))) : null;
  let found = 0;
  try {
    for (const [k, cmd] of commands(!o["no-tty"] && !c.pipedOnly, c).entries()) {
      const seen = bins.map((bin, side) => {
        const own = owners?.[side] ?? null;
        runs++;
        const raw = runCommand(bin, c, cmd, { laid, pids: { shared, own, ps }, home, clock });
        return normalize(raw, own, bin, clock === null);
      }) as [Seen, Seen];
      if (report(c, cmd, seen, laid.home, k)) found++;
    }
  } finally {
    for (const r of owners ?? []) r.stop();
  }
  if (!found && !o.keep) rmSync(laid.home, { recursive: true, force: true });
  return found;
}

/** The first line where two texts part, with its neighbours' count: enough to see the difference, the files have the rest. */
function firstDifference(a: string, b: string): string {
  const x = a.split("\n");
  const y = b.split("\n");
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const show = (s: string | undefined) => (s === undefined ? "(no such line)" : JSON.stringify(s.length > 400 ? `${s.slice(0, 400)}…` : s));
  const lines = x.filter((l, j) => l !== y[j]).length + Math.max(0, y.length - x.length);
  return `line ${i + 1} (of ${x.length} and ${y.length}; ${lines} lines differ)\n      baseline : ${show(x[i])}\n      candidate: ${show(y[i])}`;
}

function report(c: Case, cmd: Command, [a, b]: [Seen, Seen], caseHome: string, k: number): boolean {
  const parts = (["stdout", "stderr", "exit", "files"] as const).filter((p) => a[p] !== b[p]);
  if (!parts.length) return false;
  const dir = join(caseHome, "differences");
  mkdirSync(dir, { recursive: true });
  const stem = join(dir, `${String(k + 1).padStart(2, "0")}-${cmd.argv.join("_")}${cmd.tty ? `-tty${cmd.tty}` : ""}`);
  for (const [side, s] of [["baseline", a] as const, ["candidate", b] as const])
    writeFileSync(`${stem}.${side}.txt`, `${s.exit}\n== stdout\n${s.stdout}\n== stderr\n${s.stderr}\n== files\n${s.files}\n`);
  console.log(`\nDIFFERENCE in ${c.name}: ${describeCommand(c, cmd)}`);
  console.log(`  case:    ${caseHome} (state: ${join(c.dir, ".claude/loop-state.json")})`);
  console.log(`  outputs: ${stem}.{baseline,candidate}.txt`);
  for (const p of parts) console.log(p === "exit" ? `  exit: ${a.exit} vs ${b.exit}` : `  ${p}: ${firstDifference(a[p], b[p])}`);
  return true;
}
