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
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { State } from "../../src/state/schema.ts";
import { readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { READS_EVERY_WORKTREE } from "../helpers/half-added-worktree.ts";
import { laneAgent, TICK_AND_WRITE, type LaneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

/**
 * The `git` on PATH: the first `worktree add` runs as it is; the second first leaves its admin folder half written,
 * until `release`: a read of every worktree has run, or the first lane's agent has ended and a git of that lane's ran
 * after (the loop puts back the git files an agent may have damaged before it measures the attempt with git).
 */
function halfAddingGit(release: "a read" | "the first lane's agent ended"): { dir: string; PATH: string } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-half-add-");
  const G = JSON.stringify(real);
  const waitFor = (cond: string) => `i=0; while ! { ${cond}; } && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`;
  const script = `#!/bin/sh
D=${JSON.stringify(dir)}
RELEASE=${release === "a read" ? "read" : "agent"}
reads() { ls "$D" | grep -c '^read\\.'; }
if [ "$RELEASE" = agent ] && [ -e "$D/first-path" ] && [ "$(pwd -P)" = "$(cat "$D/first-path")" ] && [ ! -e "$D/after-agent" ]; then
  for f in "$LANE_AGENT"/pid-*; do [ -e "$f" ] && ! kill -0 "$(cat "$f")" 2>/dev/null && touch "$D/after-agent"; done
fi
case "$*" in
  ${READS_EVERY_WORKTREE}) ${G} "$@"; rc=$?; touch "$D/read.$$"; exit $rc ;;
  *"worktree add"*)
    for a; do path=$prev; prev=$a; done
    if mkdir "$D/first-add" 2>/dev/null; then ${G} "$@"; rc=$?; (cd "$path" && pwd -P) > "$D/first-path.new"; mv "$D/first-path.new" "$D/first-path"; exit $rc; fi
    mkdir "$D/held" 2>/dev/null || exec ${G} "$@"
    admin="$(${G} rev-parse --git-common-dir)/worktrees/$(basename "$path")"
    mkdir -p "$admin" && printf initializing > "$admin/locked" && echo "$path/.git" > "$admin/gitdir" &&
      echo ${"0".repeat(40)} > "$admin/HEAD" && : > "$admin/commondir"
    before=$(reads)
    if [ "$RELEASE" = read ]; then ${waitFor('[ "$(reads)" -gt "$before" ]')}; else ${waitFor('[ -e "$D/after-agent" ]')}; fi
    echo $(( $(reads) - before )) > "$D/reads-while-held"
    [ -s "$admin/commondir" ] && echo written > "$D/commondir-at-release" || echo empty > "$D/commondir-at-release"
    rm -rf "$admin"
    exec ${G} "$@" ;;
esac
exec ${G} "$@"
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  return { dir, PATH: `${dir}:${testPath()}` };
}

const TASKS = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";
const held = (wrapper: { dir: string }, what: string) => readFileSync(join(wrapper.dir, what), "utf8").trim();

async function runToDone(repo: string, agent: LaneAgent, wrapper: { PATH: string }): Promise<void> {
  const r = await wtLoop(
    ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"],
    { cwd: repo, env: { ...agent.env, PATH: wrapper.PATH }, timeoutMs: 60_000 },
  );
  const s = readJson<State>(join(repo, ".claude/loop-state.json"));
  expect([r.code, s.status, s.reason]).toEqual([0, "done", s.reason]); // (the reason shows when it fails)
  expect(readEvents(repo).filter((e) => e.type === "Error")).toEqual([]);
  for (const id of ["1", "2"]) expect(readFileSync(join(repo, `s${id}.txt`), "utf8")).toBe(`story ${id}\n`);
  expect(
    readdirSync(agent.dir)
      .filter((f) => f.startsWith("start-"))
      .sort(),
  ).toEqual(["start-1-1", "start-2-1"]);
  expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
}

test("a lane added while another reads every worktree: the loop goes on, both stories are integrated, it ends done", async () => {
  const repo = makeRepo({ "tasks.md": TASKS });
  git(repo, "symbolic-ref", "refs/heads/trunk", "refs/heads/main"); // an alias: the refs are read through git
  const wrapper = halfAddingGit("a read");
  await runToDone(repo, laneAgent(), wrapper);
  // The race was held open: a read of every worktree ran while the second lane's admin folder was half made.
  expect(Number(held(wrapper, "reads-while-held"))).toBeGreaterThan(0);
}, 60_000);

// After each agent the loop puts back the git files that say where a repository is (checkpoint/git-admin.ts): the
// next lane's admin folder, half written meanwhile, is git's own work, not the agent's.
test("a lane's agent that ends while the next lane is added: its half-written folder is left to git, nobody is blamed", async () => {
  const repo = makeRepo({ "tasks.md": TASKS });
  const wrapper = halfAddingGit("the first lane's agent ended");
  await runToDone(repo, laneAgent({}, `echo $$ > "$D/pid-$S"\n${TICK_AND_WRITE}`), wrapper);
  expect(existsSync(join(wrapper.dir, "after-agent"))).toBe(true); // the first lane's agent ended while the second was held
  expect(held(wrapper, "commondir-at-release")).toBe("empty"); // nobody wrote it under git's feet
}, 60_000);
