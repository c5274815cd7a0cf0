/**
 * What a command loads before it runs (docs/performance.md "Start-up"): the static imports of its
 * module, followed as the bundler follows them. zod (its module alone ~740 KB; building the state and
 * agent schemas cost `status` about a third of its start-up) must not be among them for the commands
 * run often; the state is checked by the generated validator, and zod is imported only to explain a
 * state that fails it. The --audit change (status-view → agents/auditor → agents/registry → every
 * agent's stream schema) brought it back unnoticed; this test is what notices.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/** Every file `entry` imports statically (import statements, not `await import()`), transitively. */
async function staticClosure(entry: string): Promise<string[]> {
  const r = await Bun.build({ entrypoints: [join(ROOT, entry)], target: "bun", metafile: true, external: ["citty", "@opentui/*"], throw: false });
  if (!r.success || !r.metafile) throw new Error(`bundling ${entry} failed:\n${r.logs.map(String).join("\n")}`);
  const inputs = r.metafile.inputs;
  const seen = new Set<string>();
  const walk = (path: string) => {
    if (seen.has(path) || !inputs[path]) return;
    seen.add(path);
    for (const i of inputs[path].imports) if (i.kind === "import-statement" && !i.external) walk(i.path);
  };
  walk(entry);
  if (seen.size < 2) throw new Error(`the metafile of ${entry} lists no imports: the check would pass on nothing`);
  return [...seen];
}

test("the closure follows imports through to the state's validator (the check below is not vacuous)", async () => {
  expect(await staticClosure("src/commands/status.ts")).toContain("src/state/state-check.gen.ts");
}, 60_000);

// pause, resume, max and note loaded zod for one `isFinal` taken from the zod schema (190 ms against 100 ms, load 9);
// list for the zod schema of its JSON output, history for the events' schemas `--runs` alone reads (each ~1.6× the CPU),
// stop for the schema of a changed file (the event log's), which finding the files a killed attempt changed does not need.
for (const command of ["status", "statusline", "pause", "resume", "max", "note", "list", "history", "stop"])
  test(`wt-loop ${command} loads neither zod nor the agents' registry at start-up`, async () => {
    const files = await staticClosure(`src/commands/${command}.ts`);
    expect(files.filter((f) => f.includes("node_modules/zod/") || f === "src/agents/registry.ts" || f === "src/state/schema.ts")).toEqual([]);
  }, 60_000);

// `run` before its first frame (issue 35): its command, the preparation up to the screen, the starting screen. The options
// are checked against the role flags (setup/option-mistakes.ts), not the adapters, whose output schemas (zod) cost ~9.6M
// instructions to build there; the adapters are loaded with the loop, after the frame.
test("wt-loop run loads none of the agents' adapters before its first frame", async () => {
  const entries = ["src/commands/run.ts", "src/run/run-command.ts", "src/screen/loop-model.ts", "src/screen/renderer.ts"];
  const files = new Set((await Promise.all(entries.map(staticClosure))).flat());
  expect(files).toContain("src/setup/option-mistakes.ts"); // the check below looks where the adapters came in
  const adapters = ["registry", "claude", "codex", "gemini", "command", "stream"].map((a) => `src/agents/${a}.ts`);
  expect([...files].filter((f) => adapters.includes(f))).toEqual([]);
}, 60_000);

// status and history find the worktree from its files and read the state; the process machinery (spawn.ts and what
// it loads: the containment's /proc scans, the signals, git's hardening, the line readers) is for a git call they
// make only where the files cannot tell, loaded then (~0.4M instructions and ~35 page faults of every start-up).
for (const command of ["status", "history"])
  test(`wt-loop ${command} loads no process-spawning code at start-up`, async () => {
    const files = await staticClosure(`src/commands/${command}.ts`);
    expect(files).toContain("src/worktree/worktree.ts"); // the check below looks where spawn.ts came in
    const machinery = ["spawn", "contain", "procfs", "signal", "git-hardening", "lines", "wake"].map((m) => `src/proc/${m}.ts`);
    expect(files.filter((f) => machinery.includes(f))).toEqual([]);
  }, 60_000);
