/**
 * Lanes opened at once (issue 36): each lane's checkout (its files, its own index) runs beside the others', while
 * the steps that write or read git's admin folders of the repository (`worktree add`, `list`, `prune`, `remove`)
 * still take turns: git locks refs and each index, not `.git/worktrees/` (a `worktree add` or `list` meanwhile
 * reads another's half-written `commondir` and dies "failed to read").
 *
 * A `git` on PATH logs when each of those calls starts and ends; a checkout (of files into a lane) waits there
 * until three have started, so three lanes that check out one after another never get past the first.
 */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { laneWiring } from "../../src/parallel/wiring.ts";
import { loopRepo, worktrees } from "../helpers/lanes.ts";
import { git, tempDir } from "../helpers/repo.ts";

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

/** The wrapper: `log` gets "start|end <kind> <pid>" lines; a checkout waits (up to `waitSec`) for `lanes` checkouts. */
function watchingGit(lanes: number, waitSec: number): { log: string } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-open-at-once-");
  const log = join(dir, "log");
  writeFileSync(log, "");
  const script = `#!/bin/sh
kind=
case "$*" in
  *"worktree add"*--no-checkout*) kind=admin ;;
  *"worktree add"*) kind=checkout ;;
  *"reset --hard"*) kind=checkout ;;
  *"worktree list"*|*"worktree prune"*|*"worktree remove"*) kind=admin ;;
esac
[ -z "$kind" ] && exec ${JSON.stringify(real)} "$@"
echo "start $kind $$" >> ${JSON.stringify(log)}
if [ "$kind" = checkout ]; then
  touch ${JSON.stringify(dir)}/checkout.$$
  i=0
  while [ "$(ls ${JSON.stringify(dir)} | grep -c '^checkout\\.')" -lt ${lanes} ] && [ $i -lt ${waitSec * 10} ]; do sleep 0.1; i=$((i+1)); done
fi
${JSON.stringify(real)} "$@"
rc=$?
echo "end $kind $$" >> ${JSON.stringify(log)}
exit $rc
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  process.env.PATH = `${dir}:${PATH}`;
  return { log };
}

const events = (log: string) =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [at, kind, pid] = l.split(" ");
      return { at: at as "start" | "end", kind: kind as "admin" | "checkout", pid: pid! };
    });

test("three lanes the runner opens at once check out their files at the same time; git's admin folder is written by one at a time", async () => {
  const files = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`src/f${i}.ts`, `export const v = ${i};\n`]));
  const { repo, g, head } = await loopRepo(files);
  const { lanes } = await laneWiring(g, "ralph/x"); // the lanes as the runner has them
  const { log } = watchingGit(3, 60);
  const plans = ["1", "2", "3"].map((id) => lanes.plan(id, 1, head()));
  await Promise.all(plans.map((p) => lanes.open(p)));
  process.env.PATH = PATH;

  const ev = events(log);
  // Every checkout started before any ended: the three ran at once.
  const checkouts = ev.filter((e) => e.kind === "checkout");
  const firstEnd = checkouts.findIndex((e) => e.at === "end");
  expect(checkouts.slice(0, firstEnd).filter((e) => e.at === "start").length).toBe(3);
  // No two steps on the admin folder at once: each one's end comes before the next one's start.
  const admin = ev.filter((e) => e.kind === "admin");
  expect(admin.length).toBeGreaterThanOrEqual(6);
  for (let i = 0; i < admin.length; i += 2) expect([admin[i]!.at, admin[i + 1]!.at, admin[i]!.pid]).toEqual(["start", "end", admin[i + 1]!.pid]);

  // Each lane is whole: on its branch at base, every file there, nothing to commit.
  for (const p of plans) {
    expect(git(p.worktree, "symbolic-ref", "--short", "HEAD")).toBe(p.branch);
    expect(git(p.worktree, "rev-parse", "HEAD")).toBe(head());
    expect(readFileSync(join(p.worktree, "src/f49.ts"), "utf8")).toBe("export const v = 49;\n");
    expect(git(p.worktree, "status", "--porcelain", "--untracked-files=all")).toBe("");
  }
  expect(worktrees(repo)).toBe(4);
  await Promise.all(plans.map((p) => lanes.close(p, { integrated: true })));
  expect(worktrees(repo)).toBe(1);
  for (const p of plans) expect(existsSync(p.worktree)).toBe(false);
}, 120_000);
