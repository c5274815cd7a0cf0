// Each attempt's diff is written beside its log before its work is kept or reverted (the Files tab's Enter):
// what that attempt changed from its checkpoint — its commits and its untracked files — and nothing of the
// user's work from before the loop, of an earlier attempt, or of an external diff program.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

const TWO = "# Tasks\n\n## 1. One\n- [ ] 1.1 a\n\n## 2. Two\n- [ ] 2.1 b\n";
const FAIL = "echo '<promise>FAILED: not this way</promise>'\n";

describe.each([["branch"], ["stash"]] as const)("the attempt's diff (%s checkpoints)", (checkpoint) => {
  test("a reverted attempt's diff stays; the kept one's holds only its own change; an attempt that changed nothing has none", async () => {
    const repo = makeRepo({ "tasks.md": TWO, "mine.txt": "mine\n" });
    writeFileSync(join(repo, "mine.txt"), "my uncommitted edit\n"); // the user's, from before the loop
    const mark = join(tempDir("mark-"), "ran");
    const tool = join(tempDir("tool-"), "difftool.sh");
    writeFileSync(tool, `#!/bin/sh\ntouch ${mark}\necho EXTERNAL\n`);
    chmodSync(tool, 0o755);
    git(repo, "config", "diff.external", tool);
    const r = await runEngine(
      repo,
      [
        `echo 'wrong way' > wrong.txt\necho c > committed.txt && git add committed.txt && git commit -qm agent\n${FAIL}`,
        tickStory("1", "echo 'right way' > right.txt"),
        tickStory("2"),
      ],
      { checkpoint, maxRetries: 3, stallThreshold: 5 },
    );
    expect(r.state.status).toBe("done");
    const [first, second, third] = r.state.iterations;
    expect([first!.outcome, second!.outcome, third!.outcome]).toEqual(["failed", "complete", "complete"]);
    expect(first!.diff_file).toMatch(/iter-001\.diff$/);
    const reverted = readFileSync(first!.diff_file!, "utf8");
    expect(reverted).toContain("+wrong way");
    expect(reverted).toContain("diff --git a/committed.txt b/committed.txt");
    expect(existsSync(join(repo, "wrong.txt"))).toBe(false); // reverted, its diff kept
    const kept = readFileSync(second!.diff_file!, "utf8");
    expect(kept).toContain("+right way");
    expect(kept).toContain("+- [x] 1.1 a");
    for (const d of [reverted, kept]) {
      expect(d).not.toContain("my uncommitted edit");
      expect(d).not.toContain("EXTERNAL");
    }
    expect(kept).not.toContain("wrong way");
    expect(readFileSync(third!.diff_file!, "utf8")).not.toContain("right way");
    expect(existsSync(mark)).toBe(false);
    // The events name the same files the state does.
    const ends = r.events.flatMap((e) => (e.type === "IterationEnd" ? [e.diff_file] : []));
    expect(ends).toEqual(r.state.iterations.map((i) => i.diff_file));
  });

  test("an attempt that changed no file records no diff", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const r = await runEngine(repo, [FAIL], { checkpoint, maxRetries: 1, stallThreshold: 5 });
    expect(r.state.iterations[0]!.outcome).toBe("failed");
    expect(r.state.iterations[0]!.diff_file).toBeUndefined();
  });
});
