/** tasks.md texts and state reads that many tests share. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ONE_STORY = "## 1. Only story\n- [ ] 1.1 Do it\n";
export const TWO_STORIES = "# Tasks\n\n## 1. A\n- [ ] 1.1 a\n\n## 2. B\n- [ ] 2.1 b\n";
export const THREE_STORIES = "## 1. One\n- [ ] 1.1 a\n\n## 2. Two\n- [ ] 2.1 b\n\n## 3. Three\n- [ ] 3.1 c\n";
/** Two stories a real agent can do against a scripted model server: write greet.txt, then bye.txt. */
export const GREET_AND_BYE = "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 Write greet.txt\n\n## 2. Farewell\n- [ ] 2.1 Write bye.txt\n";

export const statePath = (worktree: string) => join(worktree, ".claude/loop-state.json");

/** The loop's state file as JSON (throws while there is none: a probe for `waitFor` may rely on that). */
export function readState(worktree: string): any {
  return JSON.parse(readFileSync(statePath(worktree), "utf8"));
}

/** The state, or null while no loop has written one. */
export function stateIfAny(worktree: string): any {
  return existsSync(statePath(worktree)) ? readState(worktree) : null;
}
