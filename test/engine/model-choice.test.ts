// Which model an attempt asks for (engine/model-choice.ts, docs/how-it-works.md "A model per story").
import { describe, expect, test } from "bun:test";
import { modelFor } from "../../src/engine/model-choice.ts";

describe("modelFor", () => {
  test("--escalate: attempt 1 takes the first model, each rejected attempt one step up, the last step stays", () => {
    const state = { model: "base", escalate: "sonnet,opus" };
    expect([1, 2, 3, 4].map((a) => modelFor(state, {}, a))).toEqual(["sonnet", "opus", "opus", "opus"]);
  });

  test("the model a story's heading names is every attempt's, whatever --escalate and --model say", () => {
    expect([1, 2, 3].map((a) => modelFor({ model: "base", escalate: "sonnet,opus" }, { model: "haiku" }, a))).toEqual(["haiku", "haiku", "haiku"]);
  });

  test("without either, --model; without it, the agent's own (null)", () => {
    expect(modelFor({ model: "base", escalate: null }, {}, 2)).toBe("base");
    expect(modelFor({ model: null, escalate: undefined }, {}, 1)).toBeNull();
  });
});
