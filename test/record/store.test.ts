// Which writes of the state a power cut may lose (record/store.ts Durability). Every write is atomic; the ones not
// forced to the disk — the agent's pid, an iteration's start that changes nothing a restart reads — must leave a
// restart that finds only the last forced state deciding as it would from them. Real git, a real agent program.
import { describe, expect, test } from "bun:test";
import { uncheckedStory } from "../../src/state/ending.ts";
import { restartFacts } from "../../src/state/restart-facts.ts";
import type { State } from "../../src/state/schema.ts";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { makeRepo } from "../helpers/repo.ts";

const THREE = "# Tasks\n\n## 1. One\n- [ ] 1.1 a\n\n## 2. Two\n- [ ] 2.1 b\n\n## 3. Three\n- [ ] 3.1 c\n";
// Ticks story 1's box, then says it failed: a restart must not take that tick for a checked one.
const TICK_AND_FAIL = "sed -i 's/- \\[ \\] 1\\./- [x] 1./' tasks.md\necho '<promise>FAILED: not yet</promise>'\n";

describe.each([["branch"], ["stash"]] as const)("the state's writes a power cut may lose (%s checkpoints)", (checkpoint) => {
  test("each unforced write leaves a restart deciding as the last forced state does; a retry's start and the pid are unforced, a new story's start and each end record forced", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, [TICK_AND_FAIL, tickStory("1"), tickStory("2"), tickStory("3")], { checkpoint, maxRetries: 3, stallThreshold: 5 });
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i) => [i.story_id, i.outcome])).toEqual([
      ["1", "failed"],
      ["1", "complete"],
      ["2", "complete"],
      ["3", "complete"],
    ]);
    let lastForced: State | null = null;
    r.saved.forEach((s, i) => {
      if (r.forced[i]) {
        lastForced = s;
        return;
      }
      expect(lastForced).not.toBeNull(); // the loop's first write is forced
      expect(uncheckedStory(s)).toBe(uncheckedStory(lastForced!));
      expect(restartFacts(s)).toBe(restartFacts(lastForced!));
    });
    const forcedOf = (pick: (s: State) => boolean) => r.saved.flatMap((s, i) => (pick(s) ? [r.forced[i]] : []));
    // The agent's pid, written as each agent starts: never forced.
    expect(forcedOf((s) => s.agent_pid !== null)).toEqual([false, false, false, false]);
    // Each iteration's end record (the first write that holds it): forced.
    const ends = [1, 2, 3, 4].map((n) => r.saved.findIndex((s) => s.iterations.length === n));
    expect(ends.map((i) => r.forced[i])).toEqual([true, true, true, true]);
    // Each iteration's start (the first write of its number): a new story's forced, the retry of story 1 not —
    // after a power cut the failed attempt's record says story 1 is unchecked, as the lost start would.
    const starts = [1, 2, 3, 4].map((n) => r.saved.findIndex((s) => s.current_iteration === n));
    expect(starts.map((i) => [r.saved[i]!.current_story?.id, r.saved[i]!.current_story?.attempt, r.forced[i]])).toEqual([
      ["1", 1, true],
      ["1", 2, false],
      ["2", 1, true],
      ["3", 1, true],
    ]);
    expect(uncheckedStory(r.saved[ends[0]!]!)).toBe("1");
  }, 60_000);
});
