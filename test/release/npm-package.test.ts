// The npm packages of a release (scripts/release/npm.ts), installed the way a user does: `npm pack`ed
// tarballs, `npm install -g` into a scratch prefix, offline, scripts ignored; then the installed
// `wt-loop` runs `--version` and the demo. Only this machine's platform (linux-x64) can run here.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/cli.ts";
import { tempDir } from "../helpers/repo.ts";

const version: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const out = tempDir("wt-loop-npm-");
const npmDir = join(out, "npm");
const prefix = join(out, "prefix");
const env = { ...process.env, npm_config_cache: join(out, "cache"), npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
const installed = join(prefix, "bin/wt-loop");

function run(argv: string[], cwd = out) {
  const r = Bun.spawnSync(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

beforeAll(() => {
  const built = run([process.execPath, join(ROOT, "scripts/release/main.ts"), "--only", "linux-x64", "--out", out]);
  expect({ code: built.code, err: built.stderr }).toEqual({ code: 0, err: "" });
  const packed = run([process.execPath, join(ROOT, "scripts/release/npm.ts"), "--release", out, "--out", npmDir]);
  expect({ code: packed.code, err: packed.stderr }).toEqual({ code: 0, err: "" });
  mkdirSync(prefix);
  const tarballs = [`wt-loop-${version}.tgz`, `wt-loop-linux-x64-${version}.tgz`].map((f) => join(npmDir, f));
  const install = run(["npm", "install", "-g", "--prefix", prefix, "--offline", "--ignore-scripts", ...tarballs]);
  expect({ code: install.code, err: install.stderr }).toEqual({ code: 0, err: "" });
}, 600_000);

describe("npm install -g of the packed tarballs", () => {
  test("the launcher package names one optional dependency per platform, and no install script", () => {
    const pkg = JSON.parse(readFileSync(join(prefix, "lib/node_modules/wt-loop/package.json"), "utf8"));
    expect(pkg.optionalDependencies).toEqual({ "@wt-loop/linux-x64": version });
    expect(pkg.bin).toEqual({ "wt-loop": "bin/wt-loop.cjs" });
    expect(pkg.scripts?.postinstall ?? pkg.scripts?.install).toBeUndefined();
    const platform = JSON.parse(readFileSync(join(prefix, "lib/node_modules/@wt-loop/linux-x64/package.json"), "utf8"));
    expect({ os: platform.os, cpu: platform.cpu, libc: platform.libc }).toEqual({ os: ["linux"], cpu: ["x64"], libc: ["glibc"] });
  });

  test("wt-loop --version runs the platform's binary", () => {
    const r = run([installed, "--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^wt-loop ${version.replace(/\./g, "\\.")} \\(commit [0-9a-f]+, linux-x64\\)`));
  });

  test("wt-loop demo runs to the end, and its exit code comes through the launcher", () => {
    const r = run([installed, "demo"]);
    expect({ code: r.code, err: r.stderr }).toEqual({ code: 0, err: "" });
    expect(r.stdout).toContain("The demo repository is");
    const repo = /The demo repository is (\S+):/.exec(r.stdout)?.[1];
    expect(repo && existsSync(repo)).toBeTruthy();
    rmSync(repo!, { recursive: true, force: true });
    const wrong = run([installed, "nosuch"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("Unknown command 'nosuch'");
  }, 300_000);

  test("on a platform without a build, the launcher names the ones there are", () => {
    const fake = join(out, "ppc64.cjs");
    writeFileSync(fake, 'Object.defineProperty(process, "arch", { value: "ppc64" });\n');
    const r = run(["node", "-r", fake, join(prefix, "lib/node_modules/wt-loop/bin/wt-loop.cjs"), "--version"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("wt-loop has no build for linux-ppc64. It is built for: linux-x64.");
  });

  test("without the platform package (optional dependencies omitted), the launcher says what to install", () => {
    const pkgDir = join(prefix, "lib/node_modules/@wt-loop");
    renameSync(pkgDir, `${pkgDir}-away`);
    try {
      const r = run([installed, "--version"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("@wt-loop/linux-x64 is missing");
      expect(r.stderr).toContain("npm install -g @wt-loop/linux-x64");
    } finally {
      renameSync(`${pkgDir}-away`, pkgDir);
    }
  });
});
