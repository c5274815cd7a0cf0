/**
 * Loaded once before the tests (bunfig.toml `[test] preload`), so a plain `bun test` behaves like
 * `npm test`: a missing dev dependency stops the run at once with what to do, instead of failing an
 * e2e test later with a confusing assertion; and tests get 60 s by default, not Bun's 5 s.
 */
import { plugin } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN } from "./helpers/cli.ts";
import { missingDevTools, missingMessage } from "./helpers/dev-deps.ts";

// WT_LOOP_TEST_BIN: another folder to look in, for the test of this check.
const bin = process.env.WT_LOOP_TEST_BIN ?? NODE_BIN;
const missing = missingDevTools(bin);
if (missing.length) {
  console.error(missingMessage(missing, bin));
  process.exit(1);
}

// Each test file is prefixed (on its first line, so line numbers stay) with:
// - its own config folder (helpers/cli.ts `useConfigHomeOf`), set when it loads and again before its
//   tests run, so no file's config.json can answer a later file's questions;
// - the removal of the temporary folders it made (helpers/repo.ts `removeTempDirs`), when it ends; the hook
//   has 120 s, not 5: a file's twenty repositories, with their lanes and logs, take longer to delete at load 15;
// - the 60 s default timeout: bunfig.toml has no timeout key in Bun 1.4, and setDefaultTimeout only
//   reaches the file that calls it. A --timeout given to `bun test` still wins.
const cmdline = existsSync("/proc/self/cmdline") ? readFileSync("/proc/self/cmdline", "utf8").split("\0") : [];
const timeout = cmdline.some((a) => a === "--timeout" || a.startsWith("--timeout=")) ? "" : "__setDefaultTimeout(60_000); ";
const helpers = JSON.stringify(join(import.meta.dir, "helpers/cli.ts"));
const repoHelpers = JSON.stringify(join(import.meta.dir, "helpers/repo.ts"));
plugin({
  name: "per-file test setup",
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
      contents:
        `import { setDefaultTimeout as __setDefaultTimeout, beforeAll as __beforeAll, afterAll as __afterAll } from "bun:test"; import { useConfigHomeOf as __useConfigHomeOf } from ${helpers}; import { removeTempDirs as __removeTempDirs } from ${repoHelpers}; ` +
        `${timeout}__useConfigHomeOf(${JSON.stringify(path)}); __beforeAll(() => __useConfigHomeOf(${JSON.stringify(path)})); __afterAll(__removeTempDirs, 120_000); ${await Bun.file(path).text()}`,
      loader: "ts",
    }));
  },
});
