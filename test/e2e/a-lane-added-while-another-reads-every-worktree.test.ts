// `wt-loop start --parallel 2` while git writes the second lane's admin folder: `git worktree add` creates
// `.git/worktrees/<lane>/commondir`, then writes it, and a git that reads every worktree in between dies "failed to
// read …/commondir". The first lane reads its refs then (before and after its agent): here through git's
// `for-each-ref … %(worktreepath)`, as in any repository with a branch alias (`trunk` → `main`), whose branch files
// wt-loop leaves to git. The loop rides it out: both stories run, are integrated, and it ends done. (A loop of CI
// ended `stuck` so, "Fatal error", before either agent ran.)
//
// The window is git's own and lasts microseconds; a `git` on PATH holds it open: the second `worktree add` first
// leaves its admin folder as git has it in that moment (locked "initializing", `gitdir` and `HEAD` written,
// `commondir` empty), waits until a read of every worktree has run, then makes way for the real add.
import { expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { State } from "../../src/state/schema.ts";
import { readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { READS_EVERY_WORKTREE } from "../helpers/half-added-worktree.ts";
import { laneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

function halfAddingGit(): { dir: string; PATH: string } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-half-add-");
  const script = `#!/bin/sh
D=${JSON.stringify(dir)}
reads() { ls "$D" | grep -c '^read\\.'; }
case "$*" in
  ${READS_EVERY_WORKTREE}) ${JSON.stringify(real)} "$@"; rc=$?; touch "$D/read.$$"; exit $rc ;;
  *"worktree add"*)
    if mkdir "$D/first-add" 2>/dev/null || ! mkdir "$D/held" 2>/dev/null; then exec ${JSON.stringify(real)} "$@"; fi
    for a; do path=$prev; prev=$a; done
    admin="$(${JSON.stringify(real)} rev-parse --git-common-dir)/worktrees/$(basename "$path")"
    mkdir -p "$admin" && printf initializing > "$admin/locked" && echo "$path/.git" > "$admin/gitdir" &&
      echo ${"0".repeat(40)} > "$admin/HEAD" && : > "$admin/commondir"
    before=$(reads)
    i=0; while [ "$(reads)" -le "$before" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
    echo $(( $(reads) - before )) > "$D/reads-while-held"
    rm -rf "$admin"
    exec ${JSON.stringify(real)} "$@" ;;
esac
exec ${JSON.stringify(real)} "$@"
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  return { dir, PATH: `${dir}:${testPath()}` };
}

test("a lane added while another reads every worktree: the loop goes on, both stories are integrated, it ends done", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n" });
  git(repo, "symbolic-ref", "refs/heads/trunk", "refs/heads/main"); // an alias: the refs are read through git
  const agent = laneAgent();
  const wrapper = halfAddingGit();
  const r = await wtLoop(
    ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"],
    { cwd: repo, env: { ...agent.env, PATH: wrapper.PATH }, timeoutMs: 60_000 },
  );
  // The race was held open: a read of every worktree ran while the second lane's admin folder was half made.
  expect(Number(readFileSync(join(wrapper.dir, "reads-while-held"), "utf8"))).toBeGreaterThan(0);
  const s = readJson<State>(join(repo, ".claude/loop-state.json"));
  expect([r.code, s.status, s.reason]).toEqual([0, "done", s.reason]); // (the reason shows when it fails)
  expect(readEvents(repo).filter((e) => e.type === "Error")).toEqual([]);
  for (const id of ["1", "2"]) expect(readFileSync(join(repo, `s${id}.txt`), "utf8")).toBe(`story ${id}\n`);
  expect(git(repo, "log", "--format=%s", "main..HEAD")).toContain("story 1");
  expect(git(repo, "log", "--format=%s", "main..HEAD")).toContain("story 2");
  expect(
    readdirSync(agent.dir)
      .filter((f) => f.startsWith("start-"))
      .sort(),
  ).toEqual(["start-1-1", "start-2-1"]);
  expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
}, 60_000);
