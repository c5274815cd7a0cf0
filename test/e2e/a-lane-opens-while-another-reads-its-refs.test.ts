// `--parallel 2`: the second lane is added (`git worktree add` writes its admin folder file by file) while the first
// lane reads its refs before its agent starts, and git reading every worktree then dies "failed to read
// …/commondir". The loop rides it out: both stories run and are integrated. (In a CI run the e2e
// pause-while-lanes-run ended `stuck` within 1.4 s so, "Fatal error", before either agent ran.)
//
// The window is git's own and lasts microseconds; a `git` on PATH holds it open: the second `worktree add` first
// leaves its admin folder as git has it in that moment (`gitdir` and `HEAD` written, `commondir` empty), waits for
// a read of every worktree to have run, then makes way for the real add.
import { expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { laneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

function halfAddingGit(): { dir: string; PATH: string } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-half-add-");
  const script = `#!/bin/sh
D=${JSON.stringify(dir)}
case "$*" in
  *worktreepath*|*"worktree list"*) ${JSON.stringify(real)} "$@"; rc=$?; touch "$D/read.$$"; exit $rc ;;
  *"worktree add"*)
    if mkdir "$D/first-add" 2>/dev/null; then exec ${JSON.stringify(real)} "$@"; fi
    [ -e "$D/held" ] && exec ${JSON.stringify(real)} "$@"
    touch "$D/held"
    for a; do path=$prev; prev=$a; done
    admin="$(${JSON.stringify(real)} rev-parse --git-common-dir)/worktrees/$(basename "$path")"
    mkdir -p "$admin" && echo "$path/.git" > "$admin/gitdir" && echo ${"0".repeat(40)} > "$admin/HEAD" && : > "$admin/commondir"
    before=$(ls "$D" | grep -c '^read\\.')
    i=0; while [ "$(ls "$D" | grep -c '^read\\.')" -le "$before" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
    echo $(( $(ls "$D" | grep -c '^read\\.') - before )) > "$D/reads-while-held"
    rm -rf "$admin"
    exec ${JSON.stringify(real)} "$@" ;;
esac
exec ${JSON.stringify(real)} "$@"
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  return { dir, PATH: `${dir}:${testPath()}` };
}

test("a lane added while another reads its refs: the loop goes on, both stories are integrated", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n" });
  const agent = laneAgent();
  const wrapper = halfAddingGit();
  const r = await wtLoop(
    ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"],
    { cwd: repo, env: { ...agent.env, PATH: wrapper.PATH } },
  );
  // The race was held open: a read of every worktree ran while the second lane's admin folder was half made.
  expect(readFileSync(join(wrapper.dir, "reads-while-held"), "utf8").trim()).not.toBe("0");
  const s = readJson<State>(join(repo, ".claude/loop-state.json"));
  expect([r.code, s.status, s.reason]).toEqual([0, "done", s.reason]); // (the reason shows when it fails)
  for (const id of ["1", "2"]) expect(readFileSync(join(repo, `s${id}.txt`), "utf8")).toBe(`story ${id}\n`);
  expect(
    readdirSync(agent.dir)
      .filter((f) => f.startsWith("start-"))
      .sort(),
  ).toEqual(["start-1-1", "start-2-1"]);
  expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
}, 240_000);
