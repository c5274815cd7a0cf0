// An agent that does what a hijacked one would: it plants something git runs — hooks under the repository's
// hooksPath, a `commondir` pointing at a copy of the repository whose config sets core.fsmonitor (in a main
// worktree, for the main checkout and a sibling from a linked worktree, in a lane of --parallel), a nested
// repository with an fsmonitor of its own, links where the runner makes its temp index. wt-loop's own git runs
// outside any sandbox: none of what was planted may run (a marker outside the worktree never appears), no file
// outside the worktree changes, the user's next `git status` runs nothing, and the loop still completes.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readEvents, readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const state = (repo: string) => readJson<State>(join(repo, ".claude/loop-state.json"));

/** A folder outside every worktree where planted commands leave their marks. */
function marks() {
  const dir = tempDir("hijack-marks-");
  return { dir, at: (name: string) => join(dir, name), left: () => readdirSync(dir) };
}

function start(cwd: string, agent: { cmd: string; env: Record<string, string> }, more: string[] = []) {
  return wtLoop(["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", ...more], {
    cwd,
    env: agent.env,
    timeoutMs: 180_000,
  });
}

/**
 * Shell for the agent: a copy of the repository (objects, refs, HEAD, config) at `$1` whose config runs
 * `touch MARK` as core.fsmonitor; its own git ran before the config was set, so the agent itself runs nothing.
 */
const EVIL_COPY = (mark: string) =>
  `evil_copy() { C=$(cd "$(git rev-parse --git-common-dir)" && pwd); mkdir -p "$1"; cp -r "$C/objects" "$C/refs" "$C/HEAD" "$C/config" "$1/"; ` +
  `[ -f "$C/packed-refs" ] && cp "$C/packed-refs" "$1/"; git --git-dir="$1" config core.fsmonitor "touch ${mark} #"; }\n`;

/** The user's next `git status` in `cwd` (their own git, no hardening): what runs there runs as them. */
const userStatus = (cwd: string) => Bun.spawnSync(["git", "status", "--porcelain"], { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });

describe("what a hijacked agent plants in git never runs outside", () => {
  test("hooks under the repository's own core.hooksPath (husky's .husky/_): none runs on any of wt-loop's commits", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2), ".husky/_/.gitignore": "*\n" });
    git(repo, "config", "core.hooksPath", ".husky/_"); // what `husky install` sets: a folder in the worktree
    const m = marks();
    const hooks = [
      "pre-commit",
      "prepare-commit-msg",
      "commit-msg",
      "post-commit",
      "reference-transaction",
      "post-index-change",
      "post-checkout",
      "post-rewrite",
      "post-merge",
    ];
    const plant = hooks.map((h) => `printf '#!/bin/sh\\ntouch ${m.at(h)}\\n' > .husky/_/${h}; chmod +x .husky/_/${h}\n`).join("");
    const agent = laneAgent({ "1": plant + TICK_AND_WRITE });
    const r = await start(repo, agent, ["--checkpoint", "branch"]);
    expect([r.code, state(repo).status]).toEqual([0, "done"]);
    expect(state(repo).stories_completed).toBe(2);
    expect(m.left()).toEqual([]);
  }, 200_000);

  test("a .git/commondir created in a main worktree: wt-loop's git never follows it, and removes it so that yours does not either", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    const m = marks();
    const agent = laneAgent({ "1": EVIL_COPY(m.at("fsmonitor")) + `evil_copy "$PWD/.git/evil"; echo "$PWD/.git/evil" > .git/commondir\n` + TICK_AND_WRITE });
    const r = await start(repo, agent);
    expect([r.code, state(repo).status]).toEqual([0, "done"]);
    expect(state(repo).stories_completed).toBe(2);
    expect(m.left()).toEqual([]);
    // Put right, and said: the user's own git in this checkout reads its own repository again.
    expect(existsSync(join(repo, ".git/commondir"))).toBe(false);
    expect(readEvents(repo).some((e) => e.type === "Error" && /commondir/.test(e.message))).toBe(true);
    expect(userStatus(repo).exitCode).toBe(0);
    expect(m.left()).toEqual([]);
    // The checkpoints are on the loop's branch of this repository, not in the copy.
    expect(git(repo, "log", "--format=%s", "HEAD")).toContain("checkpoint: story 2");
  }, 200_000);

  test("from a linked worktree, the main checkout's and a sibling's commondir: put back after the attempt, nothing runs", async () => {
    const main = makeRepo({ "tasks.md": STORIES(1) });
    const wt = join(tempDir("hijack-wt-"), "feature");
    const sibling = join(tempDir("hijack-sib-"), "sibling");
    git(main, "worktree", "add", "-q", "-b", "feature", wt);
    git(main, "worktree", "add", "-q", "-b", "sibling", sibling);
    const m = marks();
    const plant =
      EVIL_COPY(m.at("fsmonitor")) +
      `evil_copy "$C/evil"; echo "$C/evil" > "$C/commondir"; ` +
      `for a in "$C"/worktrees/*; do echo "$C/evil" > "$a/commondir"; done\n`;
    const agent = laneAgent({ "1": plant + TICK_AND_WRITE });
    const r = await start(wt, agent);
    expect([r.code, state(wt).status]).toEqual([0, "done"]);
    expect(m.left()).toEqual([]);
    for (const where of [main, sibling, wt]) expect(userStatus(where).exitCode).toBe(0);
    expect(m.left()).toEqual([]);
    expect(existsSync(join(main, ".git/commondir"))).toBe(false);
    for (const a of readdirSync(join(main, ".git/worktrees"))) expect(readFileSync(join(main, ".git/worktrees", a, "commondir"), "utf8").trim()).toBe("../..");
  }, 200_000);

  test("--parallel 2: each lane's agent repoints its lane's commondir; nothing runs, both stories are integrated", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    const m = marks();
    const plant =
      EVIL_COPY(m.at("fsmonitor")) +
      `G=$(cd "$(git rev-parse --git-dir)" && pwd); evil_copy "$G/../evil-$S"; echo "$(cd "$G/../evil-$S" && pwd)" > "$G/commondir"\n`;
    const agent = laneAgent({}, plant + TICK_AND_WRITE);
    const r = await start(repo, agent, ["--parallel", "2"]);
    expect([r.code, state(repo).status]).toEqual([0, "done"]);
    expect(state(repo).stories_completed).toBe(2);
    expect(m.left()).toEqual([]);
    expect(userStatus(repo).exitCode).toBe(0);
    expect(m.left()).toEqual([]);
  }, 240_000);

  test("a nested repository with an fsmonitor of its own is not recorded as a gitlink, and no status looks into it", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    const m = marks();
    const plant =
      `git init -q vendor/lib && echo lib > vendor/lib/lib.txt && git -C vendor/lib add lib.txt && ` +
      `git -C vendor/lib -c user.name=a -c user.email=a@b commit -qm lib && git -C vendor/lib config core.fsmonitor "touch ${m.at("fsmonitor")} #"\n` +
      // and one without a commit, which `git add -A` refuses outright
      `git init -q vendor/empty && git -C vendor/empty config core.fsmonitor "touch ${m.at("fsmonitor-empty")} #"\n`;
    const agent = laneAgent({ "1": plant + TICK_AND_WRITE });
    const r = await start(repo, agent);
    expect([r.code, state(repo).status]).toEqual([0, "done"]);
    expect(state(repo).stories_completed).toBe(2);
    expect(m.left()).toEqual([]);
    expect(git(repo, "ls-tree", "-r", "HEAD")).not.toContain("160000"); // no gitlink
    expect(git(repo, "ls-tree", "-r", "--name-only", "HEAD")).toContain("s1.txt");
    const said = readEvents(repo).filter((e) => e.type === "Error" && e.message.includes("vendor/lib"));
    expect(said.length).toBeGreaterThan(0);
    expect(said[0].message).toContain("git submodule add");
  }, 200_000);

  test("links planted where the runner makes its temp index are never followed: the file they name keeps its content", async () => {
    for (const checkpoint of ["branch", "stash"]) {
      const repo = makeRepo({ "tasks.md": STORIES(2) });
      const victim = join(tempDir("hijack-victim-"), "precious.txt");
      writeFileSync(victim, "precious\n");
      // The runner's pid is in the state; its temp index was `<index>.wt-loop-<pid>-<n>`.
      const plant =
        `pid=$(sed -n 's/.*"runner_pid": *\\([0-9]*\\).*/\\1/p' .claude/loop-state.json); G=$(git rev-parse --git-dir); ` +
        `n=1; while [ $n -le 100 ]; do ln -sf "${victim}" "$G/index.wt-loop-$pid-$n"; n=$((n+1)); done\n`;
      // Story 1 plants and fails once (a revert), then completes; story 2 takes a new checkpoint.
      const agent = laneAgent({ "1": plant + `if [ "$K" = 1 ]; then echo '<promise>FAILED: not yet</promise>'; else ${TICK_AND_WRITE}fi\n` });
      const r = await start(repo, agent, ["--checkpoint", checkpoint]);
      expect([checkpoint, r.code, state(repo).status]).toEqual([checkpoint, 0, "done"]);
      expect(readFileSync(victim, "utf8")).toBe("precious\n");
    }
  }, 300_000);
});
