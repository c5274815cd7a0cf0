/**
 * `bun scripts/release/npm.ts`: the npm packages of a release, from what `bun run release` wrote
 * (release.json and the archives), the way esbuild and biome ship native binaries:
 *
 *   wt-loop                 a launcher (npm-launcher.cjs) and one optional dependency per platform
 *   @wt-loop/<os>-<arch>    one platform's binary; `os`, `cpu` (and `libc`) make npm install only the
 *                           machine's own
 *
 * Each is packed with `npm pack` into dist/release/npm/ (`--out DIR`: another folder). Publishing is a
 * maintainer's step (docs/install.md "Publishing to npm"); nothing here talks to the registry.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { $ } from "bun";
import { ROOT } from "./natives.ts";
import { targetByName } from "./targets.ts";
import type { ReleaseEntry } from "./main.ts";

const args = process.argv.slice(2);
const at = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const release = at("--release") ?? join(ROOT, "dist/release");
const out = at("--out") ?? join(release, "npm");

const manifest = (() => {
  try {
    return JSON.parse(readFileSync(join(release, "release.json"), "utf8")) as { version: string; entries: ReleaseEntry[] };
  } catch {
    console.error(`No release in ${release}: run \`bun run release\` first (it writes release.json and the archives).`);
    process.exit(1);
  }
})();
const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const { version, entries } = manifest;
const common = { version, description: root.description, license: root.license ?? "MIT", repository: root.repository, homepage: root.homepage };

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const packed: string[] = [];

for (const e of entries) {
  const t = targetByName(e.target)!;
  const dir = join(out, "src", e.target);
  mkdirSync(join(dir, "bin"), { recursive: true });
  await $`tar -xzf ${join(release, e.archive)} -C ${dir}`.quiet();
  copyFileSync(join(dir, "wt-loop"), join(dir, "bin/wt-loop"));
  rmSync(join(dir, "wt-loop"));
  chmodSync(join(dir, "bin/wt-loop"), 0o755);
  const pkg = {
    name: `@wt-loop/${e.target}`,
    ...common,
    description: `The wt-loop binary for ${e.target}${e.screen ? "" : " (built without the full screen's native library)"}. Install wt-loop, not this.`,
    os: [t.os],
    cpu: [t.arch],
    ...(t.os === "linux" ? { libc: [t.musl ? "musl" : "glibc"] } : {}),
    files: ["bin/wt-loop", "licenses"],
    preferUnplugged: true,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  packed.push(await pack(dir));
}

const main = join(out, "src", "wt-loop");
mkdirSync(join(main, "bin"), { recursive: true });
const launcher = readFileSync(join(import.meta.dir, "npm-launcher.cjs"), "utf8").replace("__SUPPORTED__", JSON.stringify(entries.map((e) => e.target)));
writeFileSync(join(main, "bin/wt-loop.cjs"), launcher);
chmodSync(join(main, "bin/wt-loop.cjs"), 0o755);
writeFileSync(
  join(main, "package.json"),
  `${JSON.stringify(
    {
      name: "wt-loop",
      ...common,
      bin: { "wt-loop": "bin/wt-loop.cjs" },
      files: ["bin/wt-loop.cjs"],
      engines: { node: ">=16" },
      optionalDependencies: Object.fromEntries(entries.map((e) => [`@wt-loop/${e.target}`, version])),
    },
    null,
    2,
  )}\n`,
);
copyFileSync(join(ROOT, "README.md"), join(main, "README.md"));
packed.push(await pack(main));
console.log(`${packed.length} npm packages in ${out}:\n${packed.map((p) => `  ${p}`).join("\n")}`);

async function pack(dir: string): Promise<string> {
  const r = await $`npm pack --json --pack-destination ${out}`.cwd(dir).quiet().nothrow();
  if (r.exitCode !== 0) {
    console.error(`npm pack failed in ${dir}:\n${r.stderr.toString()}`);
    process.exit(1);
  }
  return (JSON.parse(r.stdout.toString()) as { filename: string }[])[0]!.filename;
}
