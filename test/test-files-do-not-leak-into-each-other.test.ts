// Every test file runs in the same bun process: what one leaves in the environment or the config
// folder must not reach the next: each file gets its own config folder (test/preload.ts), in
// baseEnv and in tmux panes alike. (The selection fixture passes PATH to the loader instead of
// putting the openspec CLI on this process's PATH: helpers/select-fixture.ts OPENSPEC_ENV.)
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { baseEnv, testConfigHome, useConfigHomeOf } from "./helpers/cli.ts";
import { tempDir } from "./helpers/repo.ts";
import { Tmux } from "./helpers/tmux.ts";

test("each test file has a config folder of its own, the same for all its calls", () => {
  const mine = baseEnv().XDG_CONFIG_HOME!;
  expect(baseEnv().XDG_CONFIG_HOME).toBe(mine);
  expect(mine).not.toBe(process.env.XDG_CONFIG_HOME);
  try {
    useConfigHomeOf("/elsewhere/another.test.ts");
    expect(baseEnv().XDG_CONFIG_HOME).not.toBe(mine);
  } finally {
    useConfigHomeOf(import.meta.path);
  }
  expect(baseEnv().XDG_CONFIG_HOME).toBe(mine);
});

test("a tmux pane gets the file's config folder unless the test names one", async () => {
  const tmux = new Tmux();
  const dir = tempDir("seen-");
  const report = (name: string) => `printf '%s' "$XDG_CONFIG_HOME" > ${dir}/${name}; sleep 60`;
  try {
    tmux.start("/", {}, report("default"));
    tmux.window("/", { XDG_CONFIG_HOME: "/named" }, report("named"));
    const seen = (name: string) => tmux.waitFor(`the ${name} pane`, () => existsSync(`${dir}/${name}`) && readFileSync(`${dir}/${name}`, "utf8"));
    expect(await seen("default")).toBe(testConfigHome());
    expect(await seen("named")).toBe("/named");
  } finally {
    tmux.kill();
  }
});
