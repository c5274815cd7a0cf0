// The options table is the one declaration of every loop option: these tests hold what is derived
// from it (state both ways, help defaults, the restart note) to the table, so a new option or a
// changed default cannot leave one of them behind.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { LoopOptions } from "../../src/setup/options.ts";
import { defaultLabel, FLAGS, fromState, helpText, OPTIONS, toState } from "../../src/setup/option-table.ts";
import { initialState, type Plan } from "../../src/setup/plan.ts";
import { continuingNote } from "../../src/setup/restart.ts";
import { State } from "../../src/state/schema.ts";

const plan: Plan = {
  source: { kind: "manual", task: "Do it" },
  doneCriteria: "manual",
  task: "Do it",
  change: null,
  tasksFile: null,
  stories: [{ id: "1", title: "Do it", tasks: [] }],
  write: null,
  github: null,
};
const wt = { path: "/w", name: "w" };

describe("the options table", () => {
  test("a new loop's state is a valid state file, for the defaults and for every option set", () => {
    expect(State.safeParse(initialState(wt, LoopOptions.parse({}), plan)).success).toBe(true);
    const all = LoopOptions.parse({ agent: "command", agentCmd: "x", model: "m", notify: "n", verify: "v", maxCost: "2", maxTokens: "9", max: "4" });
    const r = State.safeParse(initialState(wt, all, plan));
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ agent_cmd: "x", model: "m", notify: "n", verify: "v", max_cost_usd: 2, max_tokens: 9, max_iterations: 4 });
  });

  test("state → options gives back every remembered option that options → state wrote", () => {
    const opts = LoopOptions.parse({
      task: "T",
      change: "c",
      done: "manual",
      agent: "command",
      agentCmd: "x",
      model: "m",
      notify: "n",
      verify: "v",
      maxCost: "2",
      maxTokens: "9",
      max: "4",
      maxRetries: "5",
      stallThreshold: "6",
      iterationTimeout: "7",
      commandTimeout: "8",
      checkpoint: "stash",
      onComplete: "keep",
      verifyTimeout: "11",
      maxWait: "12",
      terminal: "inline",
      parallel: "3",
    });
    const state = State.parse({ ...initialState(wt, opts, plan), ...toState(opts) });
    const back = fromState(state);
    for (const o of OPTIONS) expect([o.key, back[o.key]]).toEqual([o.key, o.meta.remembered ? opts[o.key] : undefined]);
  });

  test("every option with a state field names a field of the state schema; the state's defaults are the options' defaults", () => {
    for (const o of OPTIONS) {
      if (!o.meta.state) continue;
      const field = State.shape[o.meta.state] as z.ZodType;
      expect(field).toBeDefined();
      if (field instanceof z.ZodDefault && o.default !== undefined) expect([o.flag, field.def.defaultValue]).toEqual([o.flag, o.default]);
    }
  });

  test("help says each default as the schema has it", () => {
    const by = Object.fromEntries(FLAGS.map((o) => [o.flag, o]));
    expect(helpText(by["verify-timeout"]!)).toBe("Limit of one --verify run, in minutes (default: 10)");
    expect(defaultLabel(by["on-complete"]!)).toBe("ask; keep when not a TTY");
    expect(defaultLabel(by["dry-run"]!)).toBe("off");
    expect(defaultLabel(by["agent-cmd"]!)).toBeNull();
  });

  test("the restart note lists the remembered options as flags, quoted for the shell, and the ones given instead", () => {
    const state = State.parse(initialState(wt, LoopOptions.parse({ agent: "command", agentCmd: "cat > /dev/null", max: "5" }), plan));
    const note = continuingNote({ ...state, status: "stuck" }, fromState(state), { max: "4" });
    expect(note).toStartWith("Continuing the previous loop (stuck) with its options: --done manual --max 5 ");
    expect(note).toContain("--agent-cmd 'cat > /dev/null'");
    expect(note).toContain(" --parallel 1 ");
    expect(note).toEndWith("Given here instead: --max.");
  });
});
