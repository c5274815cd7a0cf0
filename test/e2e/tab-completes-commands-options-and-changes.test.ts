// `source <(wt-loop completion bash)`, then Tab: the real bash asks the real CLI for candidates.
// The completion function is called the way bash calls it (COMP_WORDS as bash splits a line, `=`
// apart), and once through readline itself in a terminal (tmux), where the line is completed in place.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, wtLoop as runCli } from "../helpers/cli.ts";
import { makeRepo, openspecFiles, scratchDir, write } from "../helpers/repo.ts";
import { Tmux, testWithTmux } from "../helpers/tmux.ts";

const bin = scratchDir("wt-loop-completion-bin-");
writeFileSync(join(bin, "wt-loop"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
chmodSync(join(bin, "wt-loop"), 0o755);
const env = baseEnv({ PATH: `${bin}:${baseEnv().PATH}` });
const repo = makeRepo({ "README.md": "# r\n", ...openspecFiles("add-login") });
write(repo, openspecFiles("fix-logout"));
mkdirSync(join(repo, "openspec/changes/archive/2026-01-01-old"), { recursive: true });

/** COMPREPLY for the words of a line (bash's own split), the last being completed. */
function tab(...words: string[]): string[] {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = [
    "source <(wt-loop completion bash)",
    `COMP_WORDS=(wt-loop ${words.map(q).join(" ")})`,
    `COMP_CWORD=${words.length}`,
    "_wt_loop_complete",
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
  ].join("\n");
  const r = Bun.spawnSync(["bash", "--norc", "--noprofile", "-c", script], { cwd: repo, env, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`bash failed: ${r.stderr.toString()}`);
  return r.stdout.toString().split("\n").filter(Boolean);
}

describe("bash completion", () => {
  test("the script registers for wt-loop", () => {
    const r = Bun.spawnSync(["bash", "--norc", "--noprofile", "-c", "source <(wt-loop completion bash) && complete -p wt-loop"], { env, stdout: "pipe" });
    expect(r.stdout.toString()).toContain("-F _wt_loop_complete wt-loop");
  }, 180_000);

  test("commands from the catalog, hidden ones left out", () => {
    expect(tab("st")).toEqual(["start", "stop", "status", "statusline"]);
    expect(tab("")).toContain("completion");
    expect(tab("")).not.toContain("demo-agent");
    expect(tab("")).not.toContain("__complete");
    expect(tab("--v")).toEqual(["--version"]);
  }, 180_000);

  test("a command's flags from its args, a flag already given left out", () => {
    expect(tab("run", "--max-c")).toEqual(["--max-cost"]);
    expect(tab("status", "--")).toEqual(["--json", "--help"]);
    expect(tab("run", "--plain", "--pla")).toEqual([]);
  }, 180_000);

  test("the values of an option from the options table, after a space or an =", () => {
    expect(tab("start", "--agent", "")).toEqual(["claude", "codex", "gemini", "command"]);
    expect(tab("start", "--agent", "c")).toEqual(["claude", "codex", "command"]);
    // `--agent=co` reaches the function as three words, and the reply replaces only `co`.
    expect(tab("run", "--checkpoint", "=", "")).toEqual(["branch", "stash"]);
    expect(tab("run", "--agent", "=", "co")).toEqual(["codex", "command"]);
    expect(tab("doctor", "--terminal", "tm")).toEqual(["tmux", "tmux-detached"]);
    expect(tab("schema", "")).toEqual(["state", "events", "config", "doctor", "receipt"]);
    expect(tab("help", "dem")).toEqual(["demo"]);
  }, 180_000);

  test("--change offers the worktree's active changes, not the archive", () => {
    expect(tab("start", "--change", "").sort()).toEqual(["add-login", "fix-logout"]);
    expect(tab("run", "--change", "=", "fix")).toEqual(["fix-logout"]);
  }, 180_000);

  test("after --, and where nothing fits, no candidates (the shell falls back to files)", () => {
    expect(tab("run", "--", "--ag")).toEqual([]);
    expect(tab("nosuch", "--")).toEqual([]);
    expect(tab("start", "--verify", "")).toEqual([]);
  }, 180_000);
});

test("completion names the shells it knows; a wrong one is a clear error", async () => {
  const none = await runCli(["completion"], { cwd: repo });
  expect(none.code).toBe(1);
  expect(none.stderr).toContain("wt-loop completion bash|zsh|fish");
  const wrong = await runCli(["completion", "powershell"], { cwd: repo });
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain("takes bash, zsh, fish, got 'powershell'");
  for (const shell of ["zsh", "fish"]) {
    const r = await runCli(["completion", shell], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("__complete");
  }
}, 180_000);

const tmux = new Tmux();
afterAll(() => tmux.kill());

testWithTmux(
  "Tab in an interactive bash completes the line in place",
  async () => {
    const rc = join(scratchDir("wt-loop-completion-rc-"), "bashrc");
    writeFileSync(rc, "PS1='$ '\nsource <(wt-loop completion bash)\n");
    const pane = tmux.start(repo, env, `bash --noprofile --rcfile ${rc} -i`);
    await tmux.waitFor("the prompt", () => tmux.capture(pane).includes("$"));
    tmux.keys(pane, "-l", "wt-loop sche");
    tmux.keys(pane, "Tab");
    await tmux.waitFor("`schema` completed", () => /\$ wt-loop schema $/m.test(tmux.capture(pane)));
    tmux.keys(pane, "C-u");
    tmux.keys(pane, "-l", "wt-loop run --agent=cl");
    tmux.keys(pane, "Tab");
    await tmux.waitFor("`--agent=claude` completed", () => /\$ wt-loop run --agent=claude $/m.test(tmux.capture(pane)));
  },
  180_000,
);
