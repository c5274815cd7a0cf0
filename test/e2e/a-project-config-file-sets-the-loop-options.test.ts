// A team commits `.wt-loop.json` ("our verify command is `bun test`, retries 5") and a person keeps
// their own choices in ~/.config/wt-loop/config.json. Flags win, then a restart's remembered
// options, then the project's file, then the user's, then the defaults; `wt-loop config` and
// `--dry-run` say where each value came from, and a mistake in a file names the file, the key and
// the value, exits 1 and writes nothing.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMA_FILES } from "../../src/setup/json-schema.ts";
import { ROOT, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";

const project = (repo: string, config: object | string) =>
  writeFileSync(join(repo, ".wt-loop.json"), typeof config === "string" ? config : JSON.stringify(config, null, 2));
/** An environment whose user config file holds `config`. */
function userFile(config: object | string): { XDG_CONFIG_HOME: string; file: string } {
  const home = tempDir("xdg-");
  mkdirSync(join(home, "wt-loop"));
  const file = join(home, "wt-loop/config.json");
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
  return { XDG_CONFIG_HOME: home, file };
}
const nothingWritten = (repo: string) => {
  expect(existsSync(join(repo, ".claude"))).toBe(false);
  expect(git(repo, "branch", "--show-current")).toBe("main");
};
// An agent that says nothing: each attempt ends no_signal, so with one attempt per story the loop is stuck.
const SILENT = ["--agent", "command", "--agent-cmd", "cat > /dev/null", "--done", "manual", "--on-complete", "keep", "--terminal", "inline"];

describe("a project config file sets the loop options", () => {
  test("the file applies, a flag overrides it, and --dry-run says which came from where", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    project(repo, { $schema: "./schema/wt-loop-config.schema.json", "max-retries": 5, verify: "bun test", "max-wait": 2.5 });
    const r = await wtLoop(["start", "--dry-run", "--max", "7"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("7 iterations · 5 attempts per story");
    expect(r.stdout).toContain("Verify:    bun test");
    expect(r.stdout).toContain("Options:   the defaults, except from flag: --max · .wt-loop.json: --max-retries, --verify, --max-wait");
    const over = await wtLoop(["start", "--dry-run", "--max-retries", "2", "--verify", "none"], { cwd: repo });
    expect(over.stdout).toContain("2 attempts per story");
    expect(over.stdout).not.toContain("Verify:");
    expect(over.stdout).toContain("flag: --max-retries, --verify none · .wt-loop.json: --max-wait");
    nothingWritten(repo);
  });

  test("a real loop keeps the file's values in its state", async () => {
    const repo = makeRepo();
    project(repo, { "max-retries": 1, "stall-threshold": 4, notify: "true" });
    // Its notify command runs only once the file is trusted (a-cloned-repository-s-commands-run-only-once-trusted).
    expect((await wtLoop(["trust"], { cwd: repo })).code).toBe(0);
    const r = await wtLoop(["start", "Write the thing", ...SILENT], { cwd: repo });
    expect(r.code).toBe(2);
    expect(readState(repo)).toMatchObject({ status: "stuck", max_retries: 1, stall_threshold: 4, notify: "true", max_iterations: 30 });
  }, 60_000);

  test("a restart's remembered options beat the project file; a flag beats both", async () => {
    const repo = makeRepo();
    project(repo, { "max-retries": 1 });
    expect((await wtLoop(["start", "Write the thing", ...SILENT, "--iteration-timeout", "7"], { cwd: repo })).code).toBe(2);
    project(repo, { "max-retries": 1, "iteration-timeout": 9, "command-timeout": 20 });
    const shown = await wtLoop(["config", "--json"], { cwd: repo });
    const opts = JSON.parse(shown.stdout).options;
    expect(opts["iteration-timeout"]).toEqual({ value: 7, origin: "remembered", status: "stuck" });
    // The first run remembered the default 30 s: the file's 20 came later and loses to it.
    expect(opts["command-timeout"]).toEqual({ value: 30, origin: "remembered", status: "stuck" });
    const again = await wtLoop(["start", "--terminal", "inline", "--max", "4"], { cwd: repo });
    expect(again.code).toBe(2);
    expect(again.stdout).toContain("Continuing the previous loop (stuck) with its options");
    expect(readState(repo)).toMatchObject({ iteration_timeout_min: 7, command_timeout_sec: 30, max_iterations: 4, max_retries: 1 });
  }, 90_000);

  test("the user file applies under the project file; only the user file may choose the terminal", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    project(repo, { max: 6 });
    const user = userFile({ max: 9, "max-retries": 4, terminal: "inline" });
    const r = await wtLoop(["config"], { cwd: repo, env: { XDG_CONFIG_HOME: user.XDG_CONFIG_HOME } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^max\s+\.wt-loop\.json\s+6$/m);
    expect(r.stdout).toMatch(new RegExp(`^max-retries\\s+${user.file}\\s+4$`, "m"));
    expect(r.stdout).toMatch(new RegExp(`^terminal\\s+${user.file}\\s+inline$`, "m"));
    expect(r.stdout).toMatch(/^stall-threshold\s+default\s+2$/m);
    expect(r.stdout).toMatch(/^checkpoint\s+default\s+branch$/m);
    const flag = await wtLoop(["config", "--agent", "codex"], { cwd: repo, env: { XDG_CONFIG_HOME: user.XDG_CONFIG_HOME } });
    expect(flag.stdout).toMatch(/^agent\s+flag\s+codex$/m);
    project(repo, { terminal: "tmux" });
    const refused = await wtLoop(["start", "--dry-run"], { cwd: repo, env: { XDG_CONFIG_HOME: user.XDG_CONFIG_HOME } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(repo, ".wt-loop.json")}: "terminal" can only be set in your user file`);
    nothingWritten(repo);
  });
});

describe("a mistake in a config file", () => {
  test.each([
    ["a bad value", { "max-retries": 0 }, '.wt-loop.json: "max-retries" must be at least 1, got 0. Nothing was written.'],
    ["a wrong type", { max: "5" }, '"max" must be a whole number, got "5"'],
    ["more lanes than the cap", { parallel: 20 }, '"parallel" must be at most 16 (each lane is an agent on your one account and a worktree'],
    ["a wrong choice", { checkpoint: "brnch" }, '"checkpoint" must be branch or stash, got "brnch" (did you mean "branch"?)'],
    ["an unknown key", { "max-retry": 5 }, 'unknown key "max-retry". Did you mean "max-retries"?'],
    ["a flag that is not for files", { "dry-run": true }, '"dry-run" cannot be set in a config file'],
    ["broken JSON", '{\n  "max": 3,\n  "verify": "x",\n}\n', ".wt-loop.json:4:1: not valid JSON: expected another key"],
    ["not an object", "[1]", ".wt-loop.json must hold a JSON object of options"],
  ])("%s: exit 1, the file, the key and the value named, nothing written", async (_, config, message) => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    project(repo, config);
    for (const cmd of [["start", "--terminal", "inline"], ["run"], ["config"]]) {
      const r = await wtLoop(cmd, { cwd: repo });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${repo}/${message.startsWith(".") ? "" : ".wt-loop.json"}`);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain("    at ");
    }
    nothingWritten(repo);
  });

  test("every mistake of a file at once, and the user file named as such", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const user = userFile({ "max-retries": -1, agent: "gpt", verfy: "x" });
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env: { XDG_CONFIG_HOME: user.XDG_CONFIG_HOME } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${user.file} has 3 mistakes; nothing was written:`);
    expect(r.stderr).toContain('"agent" must be claude, codex, gemini, command or demo, got "gpt"');
    expect(r.stderr).toContain('unknown key "verfy". Did you mean "verify"?');
    nothingWritten(repo);
  });
});

describe("wt-loop schema config", () => {
  test("prints the committed JSON Schema of the config file, with every key a file may hold", async () => {
    const r = await wtLoop(["schema", "config"], { cwd: tempDir() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, SCHEMA_FILES.config), "utf8"));
    const s = JSON.parse(r.stdout);
    expect(s.additionalProperties).toBe(false);
    expect(s.properties["max-retries"]).toMatchObject({ type: "integer", minimum: 1, default: 3 });
    expect(s.properties.verify.anyOf).toContainEqual({ const: "none" });
    expect(Object.keys(s.properties)).not.toContain("dry-run");
    expect(Object.keys(s.properties)).not.toContain("change");
  });
});
