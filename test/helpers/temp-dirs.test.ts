// The temporary folders a test file makes are gone when the file ends, for every file of a `bun test` run, not only
// the first one (an `afterAll` in a shared helper binds to the first file that loads it: a day of runs left
// 22,000 folders, GBs, in /tmp, and loops refused to start for want of disk).
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./cli.ts";
import { tempDir } from "./repo.ts";

test("each test file's temporary folders are removed when that file ends", () => {
  const dir = tempDir("temp-dirs-");
  const repoHelpers = JSON.stringify(join(ROOT, "test/helpers/repo.ts"));
  for (const name of ["first", "second", "third"]) {
    writeFileSync(
      join(dir, `${name}.test.ts`),
      `import { test } from "bun:test"; import { appendFileSync } from "node:fs"; import { tempDir } from ${repoHelpers};\n` +
        `test("${name}", () => { appendFileSync(${JSON.stringify(join(dir, "made"))}, tempDir("temp-dirs-${name}-") + "\\n"); });\n`,
    );
  }
  const r = Bun.spawnSync([process.execPath, "test", "--preload", join(ROOT, "test/preload.ts"), "./first.test.ts", "./second.test.ts", "./third.test.ts"], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect({ code: r.exitCode, out: r.stderr.toString().includes("3 pass") }).toEqual({ code: 0, out: true });
  const made = readFileSync(join(dir, "made"), "utf8").trim().split("\n");
  expect(made).toHaveLength(3);
  expect(made.filter((d) => existsSync(d))).toEqual([]);
});
