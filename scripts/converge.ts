/**
 * The convergence sweep of --parallel (docs/parallel.md, "When the schedule causes a conflict"):
 * `bun run converge [-- --runs 20 --seed S]`. Stories that each append a line to one file, with 2 and 3 lanes,
 * 4 and 8 stories, agents taking 0.2–3 s (drawn from the seed, per story and attempt): every run must end `done`
 * with every story's line in the file. Not part of `bun test` (80 runs take minutes); test/parallel/converge.test.ts
 * is its deterministic case.
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { runEngine } from "../test/helpers/engine.ts";
import { laneAgent, TICK_AND_WRITE } from "../test/helpers/lane-agent.ts";
import { makeRepo } from "../test/helpers/repo.ts";
import { seeded } from "../test/helpers/seeded.ts";
import { scriptArgs, usageError } from "./args.ts";

const USAGE = `
bun run converge [-- --runs N --seed S]

The convergence sweep of --parallel (docs/parallel.md): stories that each append a line to one file, with 2 and
3 lanes, 4 and 8 stories, agents of 0.2-3 s drawn from the seed. Every run must end done with every line there.

  --runs N   runs per combination (4 combinations; default 20)
  --seed S   the first seed (runs use S, S+1, ...; default 1)
  --help     this text
`;
const opt = scriptArgs({ runs: { type: "string", default: "20" }, seed: { type: "string", default: "1" } }, USAGE);
const runs = Number(opt.runs);
const seed0 = Number(opt.seed);
if (!(Number.isInteger(runs) && runs > 0)) usageError(`--runs ${opt.runs}: a whole number of runs above 0`);
if (!Number.isInteger(seed0)) usageError(`--seed ${opt.seed}: a whole number`);

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
let failures = 0;
const started = Date.now();
for (const lanes of [2, 3])
  for (const stories of [4, 8])
    for (let seed = seed0; seed < seed0 + runs; seed++) {
      const random = seeded(seed * 1000 + lanes * 10 + stories);
      const perStory: Record<string, string> = {};
      for (let s = 1; s <= stories; s++) {
        // A sleep per attempt (0.2–3 s), then the line.
        const sleeps = Array.from({ length: 8 }, () => (0.2 + random() * 2.8).toFixed(1));
        perStory[String(s)] = `set -- ${sleeps.join(" ")}; shift $(( (K - 1) % 8 )); sleep "$1"\necho "- story $S" >> changelog.md\n${TICK_AND_WRITE}`;
      }
      const repo = makeRepo({ "tasks.md": STORIES(stories), "changelog.md": "# Changelog\n" });
      const agent = laneAgent(perStory);
      const t0 = Date.now();
      const r = await runEngine(repo, [], { parallel: lanes, agentCmd: agent.cmd, env: agent.env, maxRetries: 3 });
      const lines = readFileSync(join(repo, "changelog.md"), "utf8")
        .split("\n")
        .filter((l) => l.startsWith("- "))
        .sort();
      const want = Array.from({ length: stories }, (_, i) => `- story ${i + 1}`).sort();
      const ok = r.state.status === "done" && JSON.stringify(lines) === JSON.stringify(want);
      const conflicts = r.events.filter((e) => e.type === "Lane" && e.step === "conflict").length;
      console.log(
        `${ok ? "ok  " : "FAIL"} lanes ${lanes} stories ${stories} seed ${seed}: ${r.state.status}, ${r.state.iterations.length} iterations, ${conflicts} conflicts, ${((Date.now() - t0) / 1000).toFixed(0)} s${ok ? "" : ` — ${r.state.reason}`}`,
      );
      if (ok) for (const d of [dirname(repo), agent.dir, r.agentDir]) rmSync(d, { recursive: true, force: true });
      else failures++;
    }
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`converge: ${4 * runs} runs, ${failures} failures, ${Math.round((Date.now() - started) / 1000)} s, load ${load}`);
process.exit(failures ? 1 : 0);
