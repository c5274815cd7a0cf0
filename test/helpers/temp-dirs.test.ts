// The temporary folders a test file makes are gone when the file ends, for every file of a `bun test` run, not only
// the first one (an `afterAll` in a shared helper binds to the first file that loads it: a day of runs left
// 22,000 folders, GBs, in /tmp, and loops refused to start for want of disk).
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

// A run that leaves anything in the temporary folder is a leak: a CI run left ~300 config folders (`testConfigHome`,
// whose removal "on exit" never ran under `bun test`) and ~230 gh config folders. A child `bun test` with a TMPDIR of
// its own uses every helper that makes a temporary folder; nothing may remain when it ends.
test("a test file that uses every helper that makes a temporary folder leaves its TMPDIR empty", async () => {
  const dir = tempDir("temp-dirs-");
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const helper = (name: string) => JSON.stringify(join(ROOT, "test/helpers", name));
  const action = join(dir, "action");
  mkdirSync(action);
  writeFileSync(
    join(action, "action.yml"),
    "inputs: {}\noutputs: {}\nruns:\n  using: composite\n  steps:\n    - name: one\n      shell: bash\n      run: echo one\n",
  );
  writeFileSync(
    join(dir, "helpers.test.ts"),
    `import { expect, test } from "bun:test";\n` +
      `import { baseEnv } from ${helper("cli.ts")}; import { tempDir, makeRepo } from ${helper("repo.ts")};\n` +
      `import { startGitHubServer } from ${helper("github-server.ts")}; import { runAction } from ${helper("actions-runner.ts")};\n` +
      `test("helpers", async () => {\n` +
      `  baseEnv(); tempDir(); makeRepo();\n` +
      `  const gh = startGitHubServer(); gh.env(); gh.stop();\n` +
      `  const run = await runAction({ actionPath: ${JSON.stringify(action)}, workspace: ${JSON.stringify(dir)}, with: {}, event: {}, token: "t", env: { PATH: process.env.PATH ?? "" } });\n` +
      `  expect(run.code).toBe(0);\n` +
      `});\n`,
  );
  const r = Bun.spawnSync([process.execPath, "test", "--preload", join(ROOT, "test/preload.ts"), "./helpers.test.ts"], {
    cwd: dir,
    env: { ...process.env, TMPDIR: tmp },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect({ code: r.exitCode, pass: r.stderr.toString().includes("1 pass") }).toEqual({ code: 0, pass: true });
  expect(readdirSync(tmp)).toEqual([]);
});
