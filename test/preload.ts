/**
 * Loaded once before the tests (bunfig.toml `[test] preload`), so a plain `bun test` behaves like
 * `npm test`: a missing dev dependency stops the run at once with what to do, instead of failing an
 * e2e test later with a confusing assertion; and tests get 60 s by default, not Bun's 5 s.
 */
import { plugin } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { NODE_BIN } from "./helpers/cli.ts";
import { missingDevTools, missingMessage } from "./helpers/dev-deps.ts";

// WT_LOOP_TEST_BIN: another folder to look in, for the test of this check.
const bin = process.env.WT_LOOP_TEST_BIN ?? NODE_BIN;
const missing = missingDevTools(bin);
if (missing.length) {
  console.error(missingMessage(missing, bin));
  process.exit(1);
}

// bunfig.toml has no timeout key in Bun 1.4, and setDefaultTimeout only reaches the file that calls it:
// each test file calls it first (on its first line, so line numbers stay). A --timeout given to
// `bun test` still wins.
const cmdline = existsSync("/proc/self/cmdline") ? readFileSync("/proc/self/cmdline", "utf8").split("\0") : [];
if (!cmdline.some((a) => a === "--timeout" || a.startsWith("--timeout="))) {
  plugin({
    name: "default test timeout",
    setup(build) {
      build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
        contents: `import { setDefaultTimeout as __setDefaultTimeout } from "bun:test"; __setDefaultTimeout(60_000); ${await Bun.file(path).text()}`,
        loader: "ts",
      }));
    },
  });
}
