/**
 * Builds dist/wt-loop, a single binary. The flags matter:
 * - no .env / bunfig.toml autoload: wt-loop runs inside users' repositories and passes its
 *   environment to agents, so a repository's .env must not leak into it;
 * - --no-orphans baked in: when wt-loop exits, every process it started goes with it;
 * - --bytecode (which needs --format=esm: without it the binary crashes on consola's import.meta):
 *   no parsing at start-up, which halves `status` (41 → 23 ms measured with `bun run bench`);
 * - --external @opentui/core-linux-x64-musl: @opentui/core imports every platform's native package by
 *   name, and the bundler cannot resolve the musl one, which is not installed here; the glibc one is
 *   embedded (its .so inside the binary) and the musl branch is never taken on this platform.
 */
import { $ } from "bun";

const out = process.argv[2] ?? "dist/wt-loop";
const r = await $`bun build --compile --splitting --minify --bytecode --format=esm --no-compile-autoload-dotenv --no-compile-autoload-bunfig --compile-exec-argv=--no-orphans --external @opentui/core-linux-x64-musl --outfile ${out} src/cli.ts`
  .nothrow()
  .quiet();
const log = r.stdout.toString() + r.stderr.toString();
// `bun build` prints this and still exits 0, leaving a binary that crashes at start-up.
if (r.exitCode !== 0 || log.includes("Failed to generate bytecode")) {
  console.error(log);
  process.exit(1);
}
console.log(`built ${out}`);
