// Which model an attempt asks for (engine/model-choice.ts, docs/how-it-works.md "A model per story").
import { describe, expect, test } from "bun:test";
import { modelFor } from "../../src/engine/model-choice.ts";

const loop = { agent: "claude" as const, agent_cmd: null };

describe("modelFor", () => {
  test("--escalate: attempt 1 takes the first model, each rejected attempt one step up, the last step stays", () => {
    const state = { ...loop, model: "base", escalate: "sonnet,opus" };
    expect([1, 2, 3, 4].map((a) => modelFor(state, {}, a))).toEqual(["sonnet", "opus", "opus", "opus"]);
  });

  test("the model a story's heading names is every attempt's, whatever --escalate and --model say", () => {
    expect([1, 2, 3].map((a) => modelFor({ ...loop, model: "base", escalate: "sonnet,opus" }, { model: "haiku" }, a))).toEqual(["haiku", "haiku", "haiku"]);
  });

  test("without either, --model; without it, the agent's own (null)", () => {
    expect(modelFor({ ...loop, model: "base", escalate: null }, {}, 2)).toBe("base");
    expect(modelFor({ ...loop, model: null, escalate: undefined }, {}, 1)).toBeNull();
  });

  test("a story that names another agent: its heading's model, else that agent's own — --model and --escalate are the loop agent's names", () => {
    const state = { ...loop, model: "base", escalate: "sonnet,opus" };
    expect([1, 2, 3].map((a) => modelFor(state, { agent: "codex" }, a))).toEqual([null, null, null]);
    expect([1, 2].map((a) => modelFor(state, { agent: "codex", model: "gpt-5" }, a))).toEqual(["gpt-5", "gpt-5"]);
    // Naming the loop's own agent changes nothing: it climbs as any story does.
    expect([1, 2].map((a) => modelFor(state, { agent: "Claude" }, a))).toEqual(["sonnet", "opus"]);
  });
});
