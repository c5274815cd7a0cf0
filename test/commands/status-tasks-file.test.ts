// `status` reads the tasks file for one line: the stories with prerequisites not started yet. A file whose
// headings name no prerequisite (`(after …)`) is not parsed at all (start-up). Whatever the file, what
// status shows from it must be what the whole parse gives.
import { describe, expect, test } from "bun:test";
import { storiesShown } from "../../src/commands/status.ts";
import { parseStories } from "../../src/stories/story.ts";
import { notStartedLine } from "../../src/term/lanes-view.ts";
import { sampleState } from "../helpers/state.ts";
import { seeded } from "../helpers/seeded.ts";

const HEADS = [
  "## 1. Schema",
  "## 2. Parser (after 1)",
  "## 3. CLI (AFTER 1, 2)",
  "## 4 Docs ( after\t3 and 1 )",
  "## 5. Release (after the migration)",
  "## 6. Deploy (model: opus) (after 5)",
  "## Set up (after)",
  "## 7. Later (after 1,2) ##",
  "### 8. Sub (after 1)",
  "## 9. Thing(after 2)",
  "## (after 1)",
  "# Title",
];

describe("the tasks file as status reads it", () => {
  test("gives the line the whole parse gives, on 2,000 generated files", () => {
    const r = seeded(31);
    let lines = 0;
    let skipped = 0;
    for (let n = 0; n < 2_000; n++) {
      const parts: string[] = [];
      for (let k = Math.floor(r() * 6); k > 0; k--) {
        parts.push(HEADS[Math.floor(r() * HEADS.length)]!);
        for (let t = Math.floor(r() * 3); t > 0; t--) parts.push(`- [${r() < 0.4 ? "x" : " "}] task ${t}`);
      }
      const text = parts.join(r() < 0.9 ? "\n" : "\r\n");
      const s = sampleState({ iterations: [], current_story: r() < 0.3 ? { id: "1", title: "S", index: 1, attempt: 1 } : null });
      const shown = storiesShown(text);
      const whole = parseStories(text);
      if (shown.length === 0 && whole.length > 0) skipped++;
      const line = notStartedLine(s, shown, 80);
      expect(line).toBe(notStartedLine(s, whole, 80));
      if (line) lines++;
    }
    expect(lines).toBeGreaterThan(200);
    expect(skipped).toBeGreaterThan(50); // files that name no prerequisite, not parsed
  });
});
