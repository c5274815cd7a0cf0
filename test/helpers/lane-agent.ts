/**
 * A fake agent for `--parallel` (a real shell program, run by the `command` adapter): lanes run it at the same
 * time, so it keeps its records per story, not in one counter. It reads its story from the prompt ("## Your
 * story: 2. …"), counts that story's attempts in `$LANE_AGENT/tries-<story>`, keeps the prompt
 * (`prompt-<story>-<k>.txt`), writes a start stamp (`start-<story>-<k>`, ns since the epoch; TICK_AND_WRITE writes
 * `end-<story>-<k>` before its promise), then runs `story-<story>.sh` (or `default.sh`) with $S (story) and $K (attempt) set.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./repo.ts";

/** Ticks story $S's boxes in tasks.md, writes `s$S.txt`, reports COMPLETE. */
export const TICK_AND_WRITE =
  `awk -v id="## $S." 'index($0, id) == 1 { on = 1 } /^## / && index($0, id) != 1 { on = 0 } { if (on) sub(/- \\[ \\]/, "- [x]"); print }' tasks.md > tasks.tmp && mv tasks.tmp tasks.md\n` +
  `echo "story $S" > "s$S.txt"\ndate +%s%N > "$D/end-$S-$K"\necho 'Done.'\necho '<promise>COMPLETE</promise>'\n`;

export interface LaneAgent {
  dir: string;
  /** For `--agent-cmd` (or LoopOptions.agentCmd). */
  cmd: string;
  env: Record<string, string>;
}

export function laneAgent(perStory: Record<string, string> = {}, fallback = TICK_AND_WRITE): LaneAgent {
  const dir = tempDir("lane-agent-");
  writeFileSync(join(dir, "default.sh"), fallback);
  for (const [id, sh] of Object.entries(perStory)) writeFileSync(join(dir, `story-${id}.sh`), sh);
  writeFileSync(
    join(dir, "agent.sh"),
    `D="$LANE_AGENT"\nprompt=$(cat)\n` +
      `S=$(printf '%s\\n' "$prompt" | sed -n 's/^## Your story: \\([^.]*\\)\\. .*/\\1/p' | head -n 1)\n` +
      `K=$(( $(cat "$D/tries-$S" 2>/dev/null || echo 0) + 1 )); echo $K > "$D/tries-$S"\n` +
      `printf '%s' "$prompt" > "$D/prompt-$S-$K.txt"\ndate +%s%N > "$D/start-$S-$K"\n` +
      `f="$D/story-$S.sh"; [ -f "$f" ] || f="$D/default.sh"\n. "$f"\n`,
  );
  return { dir, cmd: `sh "${join(dir, "agent.sh")}"`, env: { LANE_AGENT: dir } };
}

/** Waits (in the agent, up to 60 s) until `count` start stamps exist: only lanes that run at once get past it. */
export const WAIT_FOR_STARTS = (count: number) =>
  `i=0; while [ "$(ls "$D" | grep -c '^start-')" -lt ${count} ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n`;
