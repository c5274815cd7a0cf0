/**
 * `bun run build`: dist/wt-loop for this machine, with its OpenTUI native library from node_modules.
 * The settings are scripts/release/compile.ts's, shared with `bun run release` (every platform).
 */
import { compile, currentCommit, startUpProfile } from "./release/compile.ts";
import { nativeFor } from "./release/natives.ts";
import { hostTarget } from "./release/targets.ts";

const out = process.argv[2] ?? "dist/wt-loop";
const target = hostTarget();
const native = await nativeFor(target);
if ("missing" in native) {
  console.error(`${native.missing}: run \`bun install --frozen-lockfile\` first.`);
  process.exit(1);
}
try {
  const commit = await currentCommit();
  await compile({ target, outfile: out, nativeDir: native.dir, bytecodeOrder: await startUpProfile(commit) }, commit);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
console.log(`built ${out}`);
