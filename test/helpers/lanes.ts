/** A repository on its loop branch `ralph/x` (as a branch checkpoint leaves it), with lanes over it. */
import { Git } from "../../src/checkpoint/git.ts";
import { gitLanes } from "../../src/parallel/lanes.ts";
import { git, makeRepo } from "./repo.ts";

export async function loopRepo(files: Record<string, string> = { "README.md": "# test\n", "a.txt": "a\n" }) {
  const repo = makeRepo(files);
  git(repo, "switch", "-q", "-c", "ralph/x");
  const g = new Git({ cwd: repo, timeoutMs: 60_000 });
  const lanes = gitLanes(g, { commonDir: await g.commonDir(), loopBranch: "ralph/x" });
  return { repo, g, lanes, head: () => git(repo, "rev-parse", "ralph/x") };
}

/** How many worktrees `git worktree list` has. */
export const worktrees = (repo: string) =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree ")).length;
