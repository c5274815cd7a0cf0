#!/usr/bin/env node
// The `wt-loop` command of the npm package: it runs the binary of this machine's platform package
// (@wt-loop/<os>-<arch>, an optional dependency npm installs only on its own platform). No download,
// no postinstall: `npm i -g wt-loop --ignore-scripts` works. CommonJS and plain Node (>= 16) APIs, so
// node, npx and bunx all run it.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const SUPPORTED = __SUPPORTED__;

function musl() {
  if (process.platform !== "linux") return false;
  try {
    // glibc's version is in Node's report; musl has none.
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

const key = `${process.platform}-${process.arch}${musl() ? "-musl" : ""}`;
if (!SUPPORTED.includes(key)) {
  console.error(`wt-loop has no build for ${key}. It is built for: ${SUPPORTED.join(", ")}.`);
  process.exit(1);
}
let bin;
try {
  bin = path.join(path.dirname(require.resolve(`@wt-loop/${key}/package.json`)), "bin", "wt-loop");
} catch {
  console.error(
    `wt-loop's binary for ${key} is not installed: its package @wt-loop/${key} is missing (installed with --omit=optional or --no-optional?). ` +
      `Install it: npm install -g wt-loop (without omitting optional dependencies), or npm install -g @wt-loop/${key}.`,
  );
  process.exit(1);
}
// Ctrl-C reaches the binary too (one process group): the launcher waits for it to end as it chooses.
const relay = () => {};
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, relay);
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`wt-loop: could not run ${bin}: ${r.error.message}`);
  process.exit(1);
}
// A binary ended by a signal ends this launcher by the same signal (a shell sees 130 for Ctrl-C).
if (r.signal) {
  process.removeAllListeners(r.signal);
  process.kill(process.pid, r.signal);
}
process.exit(r.status ?? 1);
