// scripts/action/install.sh names the platforms again in bash (a runner has no Bun to read
// scripts/release/targets.ts). This keeps the two in step: every runner platform the script accepts asks
// for an archive `bun run release` builds, and every archive built is one some runner asks for.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TARGETS } from "../../scripts/release/targets.ts";
import { ROOT } from "../helpers/cli.ts";

const RUNNERS = [
  { os: "Linux", arch: "X64", musl: false },
  { os: "Linux", arch: "ARM64", musl: false },
  { os: "Linux", arch: "X64", musl: true },
  { os: "Linux", arch: "ARM64", musl: true },
  { os: "macOS", arch: "ARM64", musl: false },
  { os: "macOS", arch: "X64", musl: false },
  { os: "Windows", arch: "X64", musl: false },
];

/** Runs install.sh for one runner platform against an empty download folder: it says which archive it
 * wants and then fails to find it, or refuses the platform. A fake `ldd` says which C library it has. */
function ask(runner: (typeof RUNNERS)[number]) {
  const dir = mkdtempSync(join(tmpdir(), "wt-install-"));
  try {
    const bin = join(dir, "bin");
    Bun.spawnSync(["mkdir", "-p", bin]);
    writeFileSync(join(bin, "ldd"), `#!/bin/sh\necho "${runner.musl ? "musl libc (x86_64)" : "ldd (Debian GLIBC 2.36-9) 2.36"}"\n`);
    chmodSync(join(bin, "ldd"), 0o755);
    const out = Bun.spawnSync(["bash", join(ROOT, "scripts/action/install.sh")], {
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        WT_LOOP_VERSION: "9.9.9",
        WT_LOOP_DOWNLOAD: `file://${dir}/none`,
        RUNNER_OS: runner.os,
        RUNNER_ARCH: runner.arch,
        RUNNER_TEMP: dir,
        GITHUB_PATH: join(dir, "path"),
      },
    });
    const text = out.stdout.toString() + out.stderr.toString();
    return { code: out.exitCode, wants: text.match(/Installing wt-loop-9\.9\.9-(\S+)\.tar\.gz/)?.[1], text };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("scripts/action/install.sh", () => {
  const asked = RUNNERS.map((r) => ({ runner: r, ...ask(r) }));

  test("asks only for archives the release builds, and refuses the rest by name", () => {
    const built = new Set(TARGETS.map((t) => t.name));
    for (const a of asked) {
      expect(a.code).toBe(1);
      if (a.wants) expect(built.has(a.wants)).toBe(true);
      else expect(a.text).toContain("::error title=wt-loop::");
    }
    expect(asked.filter((a) => a.wants).length).toBeGreaterThan(3);
  });

  test("every archive the release builds is one some runner asks for", () => {
    const wanted = new Set(asked.map((a) => a.wants));
    expect(TARGETS.map((t) => t.name).filter((n) => !wanted.has(n))).toEqual([]);
  });
});
