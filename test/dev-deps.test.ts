// A checkout without `bun install` stops the test run at once with what to do (test/preload.ts).
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_TOOLS, missingDevTools, missingMessage } from "./helpers/dev-deps.ts";
import { ROOT } from "./helpers/cli.ts";
import { tempDir } from "./helpers/repo.ts";

test("the missing tools are named, in one line that says to run bun install", () => {
  const bin = tempDir("bin-");
  for (const t of DEV_TOOLS.filter((t) => t !== "openspec" && t !== "gemini")) writeFileSync(join(bin, t), "");
  const missing = missingDevTools(bin);
  expect(missing).toEqual(["openspec", "gemini"]);
  expect(missingMessage(missing, bin)).toBe(`The tests need the dev dependencies, and ${bin}/openspec, ${bin}/gemini are missing: run \`bun install\`.`);
  expect(missingMessage(["tsc"], bin)).toBe(`The tests need the dev dependencies, and ${bin}/tsc is missing: run \`bun install\`.`);
});

test("a test run without a dev dependency stops before any test, with that line and exit code 1", () => {
  const r = Bun.spawnSync([process.execPath, "test", "test/stories/checkbox.test.ts"], {
    cwd: ROOT,
    env: { ...process.env, WT_LOOP_TEST_BIN: tempDir("empty-bin-") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = r.stdout.toString() + r.stderr.toString();
  expect(r.exitCode).toBe(1);
  expect(out).toContain("are missing: run `bun install`.");
  expect(out).not.toContain("pass");
});
