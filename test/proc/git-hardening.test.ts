// Every git the spawn wrapper starts for wt-loop runs with the settings that run nothing fixed, after the
// user's own `-c` settings from the environment (kept); a contained command (an agent's) is left as it is.
import { describe, expect, test } from "bun:test";
import { exec } from "../../src/proc/spawn.ts";
import { makeRepo } from "../helpers/repo.ts";

describe("git hardening", () => {
  test("fixed settings win over the repository's config; the user's environment settings are kept", async () => {
    const repo = makeRepo();
    await exec(["git", "config", "core.hooksPath", ".husky/_"], { cwd: repo });
    const env = { ...process.env, GIT_CONFIG_PARAMETERS: "'user.name=Env User' 'core.fsmonitor=touch x'" };
    const get = async (key: string) => (await exec(["git", "config", key], { cwd: repo, env })).stdout;
    expect(await get("core.hooksPath")).toBe("/dev/null");
    expect(await get("core.fsmonitor")).toBe("false");
    expect(await get("user.name")).toBe("Env User");
    expect(await get("user.email")).toBe("test@example.com");
  });

  test("a contained command (an agent, --verify) gets the environment it was given", async () => {
    const repo = makeRepo();
    const r = await exec(["git", "config", "core.hooksPath"], { cwd: repo, contain: { tag: `hardening-test-${process.pid}` }, allowFailure: true });
    expect(r.stdout).toBe("");
  });
});
