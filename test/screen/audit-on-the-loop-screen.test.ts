// --audit on the loop screen: the audit is an entry of its own after the stories (no story number, not in the
// gauge), its rounds as its attempts, its gaps in the Agent tab; the gap story is a story like any other.
// Fed the events of a real engine run (real git, a scripted agent and auditor).
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { LoopModel } from "../../src/screen/loop-model.ts";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

test("the audit's entry, its verdicts and gaps, and the gauge of stories only", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n" });
  const dir = tempDir("screen-auditor-");
  writeFileSync(
    join(dir, "a.sh"),
    `n=$(( $(cat "${dir}/n" 2>/dev/null || echo 0) + 1 )); echo $n > "${dir}/n"; cat > /dev/null\nif [ $n = 1 ]; then printf 'Missing the farewell.\\n<audit>\\nGAP: write bye.txt\\n</audit>\\n'; else echo '<audit>PASS</audit>'; fi\n`,
  );
  const r = await runEngine(repo, [tickStory("1", "echo hello > hello.txt"), tickStory("2", "echo bye > bye.txt")], {
    audit: true,
    auditAgent: "command",
    auditCmd: `sh "${join(dir, "a.sh")}"`,
  });
  expect(r.state.status).toBe("done");
  const m = new LoopModel({ mode: "run", since: r.state.started_at });
  m.state(r.state);
  m.resize(110, 40);
  for (const e of r.events) m.event(e);
  const f = m.frame(Date.now());
  expect(f.list.rows.map((row) => [row.glyph, row.title])).toEqual([
    ["✓", "1. Greeting"],
    ["✓", "2. Gaps found by the audit (round 1)"],
    ["✓", "Audit of the whole change"],
  ]);
  expect(f.list.gauge).toEqual({ done: 2, total: 2 });
  const agentTab = f.body.lines.map((l) => l.map((s) => s.text).join("")).join("\n");
  expect(agentTab).toContain("audit round 2");
  expect(agentTab).toContain("audit passed");
}, 60_000);
