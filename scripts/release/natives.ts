/**
 * The OpenTUI native package of each target, at exactly @opentui/core's version (the library and its
 * JavaScript are one release: another version's library does not fit). The host's comes installed in
 * node_modules; the others are fetched once with `npm pack` (npm checks the tarball against the
 * registry's integrity) into dist/release/natives/ and reused from there.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { $ } from "bun";
import type { Target } from "./targets.ts";

export const ROOT = join(import.meta.dir, "../..");
export const opentuiVersion = (): string => JSON.parse(readFileSync(join(ROOT, "node_modules/@opentui/core/package.json"), "utf8")).version;

export type Native = { dir: string; version: string } | { missing: string };

const versionIn = (dir: string): string | null => {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
};

/** The folder of the target's native package, or why there is none. */
export async function nativeFor(target: Target, cacheDir = join(ROOT, "dist/release/natives")): Promise<Native> {
  const version = opentuiVersion();
  const installed = join(ROOT, "node_modules", target.native);
  if (versionIn(installed) === version) return { dir: installed, version };
  const dir = join(cacheDir, `${target.native.replace("/", "+")}@${version}`);
  if (versionIn(dir) === version && existsSync(join(dir, target.library))) return { dir, version };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const spec = `${target.native}@${version}`;
  const packed = await $`npm pack ${spec} --json --pack-destination ${dir}`.cwd(dir).nothrow().quiet();
  if (packed.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const why = /E404|ETARGET|notarget|Not Found/i.test(packed.stderr.toString())
      ? "is not on the npm registry"
      : `could not be fetched (${lastLine(packed.stderr.toString())})`;
    return { missing: `${spec} ${why}` };
  }
  const file = (JSON.parse(packed.stdout.toString()) as { filename: string }[])[0]!.filename;
  await $`tar -xzf ${file} --strip-components=1`.cwd(dir).quiet();
  rmSync(join(dir, file));
  if (!existsSync(join(dir, target.library))) return { missing: `${spec} has no ${target.library}` };
  return { dir, version };
}

const lastLine = (s: string) =>
  s
    .trim()
    .split("\n")
    .filter((l) => !/A complete log/.test(l))
    .pop() ?? "no output";
