/**
 * Compiles the wt-loop binary for one target: what `bun run build` (the host) and `bun run release`
 * (every target) share. The settings matter:
 * - no .env / bunfig.toml autoload: wt-loop runs inside users' repositories and passes its
 *   environment to agents, so a repository's .env must not leak into it;
 * - --no-orphans baked in: when wt-loop exits, every process it started goes with it;
 * - bytecode (which needs format esm: without it the binary crashes on consola's import.meta):
 *   no parsing at start-up, which halves `status` (41 → 23 ms measured with `bun run bench`);
 * - citty's `node:util` is src/commands/args/parse-args.ts (its parseArgs, all citty takes from it):
 *   loading node:util costs 3–6 ms of every command's start-up;
 * - @opentui/core imports every platform's native package by name: the target's is embedded (its
 *   library inside the binary), every other one is left external — never loaded on that platform;
 * - the commit and the target are stamped in for `wt-loop --version` (src/proc/build-info.ts);
 * - the bytecode laid out by what start-up uses (`bytecodeOrder`, recorded by a first build: bytecode-order.ts);
 * - JavaScriptCore's JIT starts 100 times more reluctant (`jitPolicy`): a command that prints and ends runs
 *   its code a few hundred times, and compiling it on the way cost more than it saved (`status` 500 and
 *   `history` 500 ~3 ms of CPU each; docs/performance.md). Every command that runs on sets the normal policy
 *   back before it starts (src/cli.ts, the catalog's `quick`).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { $, type BunPlugin } from "bun";
import type { BuildStamp } from "../../src/proc/build-info.ts";
import { recordBytecodeOrder, scratch } from "./bytecode-order.ts";
import { nativeFor, ROOT } from "./natives.ts";
import { hostTarget, type Target } from "./targets.ts";

export interface CompileInput {
  target: Target;
  outfile: string;
  /** The target's OpenTUI native package folder; null builds without the full screen (lines only). */
  nativeDir: string | null;
  /** Profiles of start-up (bytecode-order.ts), most common first; none: Bun's own order. */
  bytecodeOrder?: string[];
}

/**
 * The profiles of start-up for the layout of every target's build of these sources (bytecode-order.ts): a
 * scratch build for this machine, run on the commands run most. Its folder is removed when this process exits.
 */
export async function startUpProfile(commit: string | null): Promise<string[]> {
  const dir = scratch();
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const target = hostTarget();
  const native = await nativeFor(target);
  const binary = join(dir, "wt-loop");
  await compile({ target, outfile: binary, nativeDir: "dir" in native ? native.dir : null }, commit);
  return recordBytecodeOrder(binary, dir);
}

/** The commit being built: its short hash, `-dirty` when the tree has uncommitted changes; null outside git. */
export async function currentCommit(): Promise<string | null> {
  const head = await $`git rev-parse --short=10 HEAD`.cwd(ROOT).nothrow().quiet();
  if (head.exitCode !== 0) return null;
  const dirty = (await $`git status --porcelain --untracked-files=no`.cwd(ROOT).nothrow().quiet()).stdout.toString().trim() !== "";
  return head.stdout.toString().trim() + (dirty ? "-dirty" : "");
}

const PARSE_ARGS = join(ROOT, "src/commands/args/parse-args.ts");

/** citty takes only parseArgs from node:util: ours (see the header); Bun resolves a builtin before any onResolve, so the import is rewritten in citty's source. */
export const cittyWithoutNodeUtil: BunPlugin = {
  name: "citty-without-node-util",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]citty[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const text = await Bun.file(args.path).text();
      const from = 'import { parseArgs as parseArgs$1 } from "node:util";';
      if (!text.includes(from)) throw new Error(`${args.path} no longer imports node:util as expected: look at ${PARSE_ARGS}`);
      const to = `import { parseArgs as parseArgs$1 } from ${JSON.stringify(PARSE_ARGS)};`;
      return { contents: text.replace(from, () => to), loader: "js" };
    });
  },
};

export async function compile(input: CompileInput, commit: string | null): Promise<void> {
  const { target, nativeDir } = input;
  const natives: BunPlugin = {
    name: "opentui-native-of-the-target",
    setup(build) {
      build.onResolve({ filter: /^@opentui\/core-(darwin|linux|win32)-/ }, (args) =>
        args.path === target.native && nativeDir ? { path: join(nativeDir, "index.bun.js") } : { path: args.path, external: true },
      );
    },
  };
  const stamp: BuildStamp = { commit, target: target.name, screen: nativeDir !== null };
  const define: Record<string, string> = { WT_LOOP_BUILD: JSON.stringify(JSON.stringify(stamp)) };
  if (target.musl) define["process.env.OPENTUI_LIBC"] = JSON.stringify("musl");
  const r = await Bun.build({
    entrypoints: [join(ROOT, "src/cli.ts")],
    compile: {
      target: target.bun as Bun.Build.CompileTarget,
      outfile: input.outfile,
      execArgv: ["--no-orphans"],
      jitPolicy: 100,
      bytecodeOrder: input.bytecodeOrder ?? null,
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    splitting: true,
    minify: true,
    bytecode: true,
    format: "esm",
    define,
    plugins: [natives, cittyWithoutNodeUtil],
    throw: false,
  });
  const logs = r.logs.map(String).join("\n");
  // Bun reports this and still writes a binary, which crashes at start-up.
  if (!r.success || logs.includes("Failed to generate bytecode")) throw new Error(`bun build for ${target.name} failed:\n${logs}`);
}
