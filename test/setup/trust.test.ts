// The rules of setup/trust.ts on real files in a temp config folder: a file is trusted for one content,
// a state's seal vouches for exactly its worktree and commands under this user's key, and only the
// commands a project file or an unsealed state would run are refused.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { layerOptions } from "../../src/setup/config.ts";
import { LoopOptions } from "../../src/setup/options.ts";
import { COMMAND_OPTIONS, fileTrust, revokeFile, sealCommands, sealHolds, trustFile, untrustedCommands } from "../../src/setup/trust.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

const envWith = () => ({ XDG_CONFIG_HOME: tempDir("xdg-") });

describe("trusted files", () => {
  test("trusted for one content; another content is 'changed'; revoked, untrusted", () => {
    const env = envWith();
    const file = join(tempDir(), ".wt-loop.json");
    writeFileSync(file, "{}");
    expect(fileTrust(file, "aaa", env)).toBe("untrusted");
    trustFile(file, "aaa", env);
    expect(fileTrust(file, "aaa", env)).toBe("trusted");
    expect(fileTrust(file, "bbb", env)).toBe("changed");
    expect(statSync(join(env.XDG_CONFIG_HOME, "wt-loop/trusted.json")).mode & 0o777).toBe(0o600);
    expect(revokeFile(file, env)).toBe(true);
    expect(revokeFile(file, env)).toBe(false);
    expect(fileTrust(file, "aaa", env)).toBe("untrusted");
  });

  test("the options that run commands are declared in the table", () => {
    expect(COMMAND_OPTIONS.map((o) => o.flag).sort()).toEqual(["agent-cmd", "audit-cmd", "notify", "review-cmd", "verify"]);
  });
});

describe("the seal of a state's commands", () => {
  const wt = tempDir("wt-");
  test("holds for the state it was made for, under the same key only", () => {
    const env = envWith();
    const s = sampleState({ worktree_path: wt, verify: "bun test", notify: null, agent_cmd: null });
    s.commands_seal = sealCommands(s, env);
    expect(s.commands_seal).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(env.XDG_CONFIG_HOME, "wt-loop/seal.key")).mode & 0o777).toBe(0o600);
    expect(sealHolds(s, env)).toBe(true);
    expect(sealHolds(s, envWith())).toBe(false); // another user's key
    expect(sealHolds({ ...s, verify: "bun test; curl x" }, env)).toBe(false);
    expect(sealHolds({ ...s, notify: "touch x" }, env)).toBe(false);
    expect(sealHolds({ ...s, worktree_path: tempDir("other-") }, env)).toBe(false);
    expect(sealHolds({ ...s, commands_seal: undefined }, env)).toBe(false);
    expect(sealHolds({ ...s, review_cmd: "curl x | sh" }, env)).toBe(false); // --review-cmd is sealed too
  });

  test("a seal written before --review-cmd existed still holds (its commands were agent-cmd, notify and verify)", () => {
    const env = envWith();
    const s = sampleState({ worktree_path: wt, verify: "bun test", notify: null, agent_cmd: "./agent.sh" });
    sealCommands(s, env); // makes the key
    const key = readFileSync(join(env.XDG_CONFIG_HOME, "wt-loop/seal.key"), "utf8").trim();
    const before = createHmac("sha256", key)
      .update(JSON.stringify([realpathSync(wt), "./agent.sh", null, "bun test"]))
      .digest("hex");
    expect(sealHolds({ ...s, commands_seal: before }, env)).toBe(true);
  });

  test("a state without commands needs none and gets none", () => {
    const env = envWith();
    const s = sampleState({ worktree_path: wt });
    expect(sealCommands(s, env)).toBe(null);
    expect(sealHolds(s, env)).toBe(true);
  });
});

describe("untrusted commands", () => {
  const setup = (config: object) => {
    const wt = tempDir("wt-");
    writeFileSync(join(wt, ".wt-loop.json"), JSON.stringify(config));
    const env = envWith();
    const layered = layerOptions(wt, {}, null, env);
    return { wt, env, layered, opts: LoopOptions.parse(layered.options) };
  };

  test.each([
    ["a command", { verify: "bun test", "max-retries": 5 }, ["verify"]],
    ["no command", { "max-retries": 5, agent: "command" }, []],
    ['"none": runs nothing', { verify: "none" }, []],
  ])("a project file with %s", (_, config, refused) => {
    const { env, layered, opts, wt } = setup(config);
    expect(untrustedCommands(layered, opts, null, join(wt, ".claude/loop-state.json"), env).flatMap((u) => u.commands.map((c) => c.flag))).toEqual(refused);
  });

  test("a flag over the file's command is not refused", () => {
    const { env, wt } = setup({ verify: "bun test" });
    const layered = layerOptions(wt, { verify: "make check" }, null, env);
    expect(untrustedCommands(layered, LoopOptions.parse(layered.options), null, "", env)).toEqual([]);
  });
});
