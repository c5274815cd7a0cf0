/** Runs a whole loop through the CLI (`start --terminal inline`) with the fake agent. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { State } from "../../src/state/schema.ts";
import { fakeAgent, readEvents, readJson, wtLoop, type CliResult } from "./cli.ts";
import { tempDir } from "./repo.ts";

export interface LoopRun extends CliResult {
  state: State;
  events: any[];
  agentDir: string;
  prompt(n: number): string;
  calls(): number;
}

export async function runLoop(repo: string, steps: object[], args: string[] = [], env: Record<string, string | undefined> = {}): Promise<LoopRun> {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  const r = await wtLoop(["start", "--terminal", "inline", ...args], { cwd: repo, env: { ...agent.env, ...env } });
  const statePath = join(repo, ".claude/loop-state.json");
  return {
    ...r,
    state: existsSync(statePath) ? readJson<State>(statePath) : (null as never),
    events: existsSync(join(repo, ".claude/loop-events.jsonl")) ? readEvents(repo) : [],
    agentDir: agent.dir,
    prompt: (n) => readFileSync(join(agent.dir, `prompt-${n}.txt`), "utf8"),
    calls: () => (existsSync(join(agent.dir, "count")) ? Number(readFileSync(join(agent.dir, "count"), "utf8")) : 0),
  };
}

export const COMPLETE = (extra: object = {}) => ({ tick: "story", promise: "COMPLETE", ...extra });
