/**
 * `bun run release`: wt-loop for every platform of targets.ts, into dist/release/:
 * `wt-loop-<version>-<target>.tar.gz` (the binary, and the licences of the native library inside it),
 * `SHA256SUMS`, and `release.json` (what each archive holds, for the npm packages and the action).
 *
 *   bun run release                               every target
 *   bun run release --only linux-x64,linux-arm64  some of them
 *   bun run release --allow-missing-native        build a target whose OpenTUI native package is not on
 *                                                 the registry without it (its loop is shown as lines)
 *
 * Each binary is checked before it is archived: its format and CPU, and the native library's bytes
 * inside it (scripts/release/inspect.ts).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync } from "node:fs";
import { basename, join } from "node:path";
import { $ } from "bun";
import { compile, currentCommit, startUpProfile } from "./compile.ts";
import { checkBinary } from "./inspect.ts";
import { nativeFor, ROOT } from "./natives.ts";
import { TARGETS, targetByName, type Target } from "./targets.ts";

export interface ReleaseEntry {
  target: string;
  archive: string;
  sha256: string;
  binaryBytes: number;
  archiveBytes: number;
  /** The OpenTUI native package embedded, or why there is none. */
  native: string;
  screen: boolean;
}

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const valueOf = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const known = new Set(["--only", "--allow-missing-native", "--out"]);
for (const a of args) if (a.startsWith("-") && !known.has(a)) fail(`Unknown option ${a}. Options: --only TARGET,…  --allow-missing-native  --out DIR`);

const out = valueOf("--out") ?? join(ROOT, "dist/release");
const only = valueOf("--only")?.split(",").filter(Boolean);
const targets: Target[] = only ? only.map((n) => targetByName(n) ?? fail(`Unknown target ${n}. Targets: ${TARGETS.map((t) => t.name).join(", ")}`)) : TARGETS;
const version: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const commit = await currentCommit();

// Every native package first: a missing one is said before anything is built.
const natives = await Promise.all(targets.map((t) => nativeFor(t)));
const missing = natives.flatMap((n) => ("missing" in n ? [n.missing] : []));
if (missing.length && !flag("--allow-missing-native"))
  fail(
    `${missing.join("\n")}\nThe full screen of those targets needs it. Publish or mirror it, or build them without it (their loop is shown as lines): bun run release --allow-missing-native`,
  );

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.startsWith(`wt-loop-${version}-`) || f === "SHA256SUMS" || f === "release.json") rmSync(join(out, f));
const entries: ReleaseEntry[] = [];
const bytecodeOrder = await startUpProfile(commit); // recorded here, for every target (compile.ts)
for (const [i, target] of targets.entries()) {
  const native = natives[i]!;
  const nativeDir = "dir" in native ? native.dir : null;
  const stage = join(out, "stage", target.name);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const bin = join(stage, "wt-loop");
  const started = performance.now();
  await compile({ target, outfile: bin, nativeDir, bytecodeOrder }, commit);
  const problems = checkBinary(bin, target, nativeDir && join(nativeDir, target.library));
  if (problems.length) fail(problems.join("\n"));
  if (nativeDir) copyLicences(nativeDir, join(stage, "licenses", target.native));
  const archive = `wt-loop-${version}-${target.name}.tar.gz`;
  await archiveStage(stage, join(out, archive));
  const bytes = readFileSync(join(out, archive));
  entries.push({
    target: target.name,
    archive,
    sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
    binaryBytes: statSync(bin).size,
    archiveBytes: bytes.length,
    native: nativeDir ? `${target.native}@${"version" in native ? native.version : ""}` : "missing" in native ? native.missing : "",
    screen: nativeDir !== null,
  });
  console.log(
    `${archive}  binary ${mb(statSync(bin).size)}, archive ${mb(bytes.length)}${nativeDir ? "" : ", WITHOUT the full screen"} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}
writeFileSync(join(out, "SHA256SUMS"), entries.map((e) => `${e.sha256}  ${e.archive}\n`).join(""));
writeFileSync(join(out, "release.json"), `${JSON.stringify({ version, commit, entries }, null, 2)}\n`);
console.log(`${entries.length} archives, SHA256SUMS and release.json in ${out}`);

function copyLicences(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(from)) if (/^(LICENSE|AUTHORS|PATENTS|FFMPEG)/.test(f)) copyFileSync(join(from, f), join(to, f));
}

/** A reproducible tarball: sorted names, no owners, one fixed time (the commit's), gzip without a name or time. */
async function archiveStage(stage: string, file: string): Promise<void> {
  const when = (await $`git log -1 --format=%ct`.cwd(ROOT).nothrow().quiet()).stdout.toString().trim() || "0";
  const names = readdirSync(stage);
  await $`tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@${when} -cf - ${names} | gzip -n -9 > ${file}`.cwd(stage).quiet();
  if (!statSync(file).size) fail(`could not write ${basename(file)}`);
}

function mb(n: number): string {
  return `${(n / 1e6).toFixed(1)} MB`;
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
