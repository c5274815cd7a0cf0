/**
 * Builds dist/wt-loop, a single binary. The flags matter (reference/toolchain.md §1):
 * - no .env / bunfig.toml autoload: wt-loop runs inside users' repositories and passes its
 *   environment to agents, so a repository's .env must not leak into it;
 * - --no-orphans baked in: when wt-loop exits, every process it started goes with it;
 * - no --bytecode: it needs --format=esm and gains ~10 ms; not worth a second code path yet.
 */
import { $ } from "bun";

const out = process.argv[2] ?? "dist/wt-loop";
await $`bun build --compile --minify --no-compile-autoload-dotenv --no-compile-autoload-bunfig --compile-exec-argv=--no-orphans --outfile ${out} src/cli.ts`;
console.log(`built ${out}`);
