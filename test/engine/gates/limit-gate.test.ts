// One account, one wait (engine/gates/limit-gate.ts): a limit one lane was refused for holds every lane of the loop
// until the same reset, and another loop of the repository learns of it from the limits file before it runs.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { unavailable } from "../../../src/agents/adapter.ts";
import type { AgentRun } from "../../../src/agents/run-agent.ts";
import { fileGate, limitFileOf, limitGate } from "../../../src/engine/gates/limit-gate.ts";
import type { LoopDeps } from "../../../src/engine/ports.ts";
import { runWhenAvailable } from "../../../src/engine/gates/unavailable.ts";
import type { LoopEvent } from "../../../src/record/events.ts";
import { memoryStore } from "../../../src/record/store.ts";
import { sampleState } from "../../helpers/state.ts";
import { tempDir } from "../../helpers/repo.ts";

const ran = (refusedUntil?: Date): AgentRun => ({
  done: null,
  promise: null,
  ending: null,
  exitCode: 0,
  end: "exit",
  durationMs: 1,
  unavailable: refusedUntil ? unavailable("usage limit reached", refusedUntil) : null,
});

function deps(limits: LoopDeps["limits"], events: LoopEvent[]): LoopDeps {
  const store = memoryStore(sampleState());
  store.subscribe((change) => change.kind === "event" && events.push(change.event));
  return {
    env: { WT_LOOP_WAIT_SCALE: "0.001" },
    signal: new AbortController().signal,
    limits,
    checkpoint: { revert: async () => [] },
    store,
    setTitle() {},
  } as unknown as LoopDeps;
}

const at = (storyId: string) => ({ storyId, iteration: 1, attempt: 1, logPath: join(tempDir(), "iter-001.jsonl") });

test("lanes of one loop: a lane refused until T holds the other lane's next run until T", async () => {
  const gate = limitGate(deps(undefined, []), new AbortController().signal);
  const reset = new Date(Date.now() + 1500);
  const eventsA: LoopEvent[] = [];
  const a = runWhenAvailable(
    sampleState(),
    deps(gate, eventsA),
    at("1"),
    (() => {
      let n = 0;
      return async () => (n++ === 0 ? ran(reset) : ran());
    })(),
  );
  // Lane B runs once A's refusal is known: it must not run before the reset A was given.
  await Promise.resolve();
  await Bun.sleep(50);
  let bRanAt = 0;
  const eventsB: LoopEvent[] = [];
  const b = runWhenAvailable(sampleState(), deps(gate, eventsB), at("2"), async () => {
    bRanAt = Date.now();
    return ran();
  });
  await Promise.all([a, b]);
  expect(bRanAt).toBeGreaterThanOrEqual(reset.getTime());
  expect(eventsB.some((e) => e.type === "Waiting")).toBe(true); // it said so, as for its own refusal
}, 20_000);

test("another loop of the repository: the limits file holds its run until the reset; a refusal writes it whole", async () => {
  const common = tempDir();
  const file = limitFileOf(common, "claude");
  const reset = new Date(Date.now() + 1200);
  // Loop 1 is refused: the file says until when (the reset plus the margin, scaled).
  await runWhenAvailable(
    sampleState(),
    deps(fileGate(file, new AbortController().signal), []),
    at("1"),
    (() => {
      let n = 0;
      return async () => (n++ === 0 ? ran(reset) : ran());
    })(),
  );
  const written = JSON.parse(readFileSync(file, "utf8"));
  expect(Date.parse(written.until)).toBeGreaterThanOrEqual(reset.getTime());
  expect(written.reason).toContain("usage limit reached");
  // Loop 2 with a fresh gate on the same file, started while the limit is in force.
  const later = new Date(Date.now() + 1500);
  writeFileSync(file, JSON.stringify({ until: later.toISOString(), reason: "Claude Code: usage limit reached" }));
  let ranAt = 0;
  await runWhenAvailable(sampleState(), deps(fileGate(file, new AbortController().signal), []), at("1"), async () => {
    ranAt = Date.now();
    return ran();
  });
  expect(ranAt).toBeGreaterThanOrEqual(later.getTime());
}, 20_000);

test("no limits file, or a past or torn one: nothing waits", async () => {
  const file = limitFileOf(tempDir(), "codex");
  const gate = fileGate(file, new AbortController().signal);
  expect(gate.held()).toBeNull();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, "{ torn");
  expect(gate.held()).toBeNull();
  writeFileSync(file, JSON.stringify({ until: new Date(Date.now() - 1000).toISOString(), reason: "x" }));
  expect(gate.held()).toBeNull();
  expect(existsSync(file)).toBe(true);
});

test("the limits file is written whole without following a link planted under the old temp name (the git dir is the agent's to write)", () => {
  const common = tempDir();
  const file = limitFileOf(common, "claude");
  mkdirSync(dirname(file), { recursive: true });
  const victim = join(tempDir(), "precious.txt");
  writeFileSync(victim, "precious\n");
  symlinkSync(victim, `${file}.${process.pid}.tmp`); // the runner's pid is in its state file
  const until = Date.now() + 60_000;
  fileGate(file, new AbortController().signal).refused(until, "limit");
  expect(readFileSync(victim, "utf8")).toBe("precious\n");
  expect(JSON.parse(readFileSync(file, "utf8")).until).toBe(new Date(until).toISOString());
});
