// `bun run release` for one platform this machine cannot run (macOS on Apple silicon): the
// cross-compiled binary, its archive, its checksum, and what the archive's manifest says.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { binaryKind, embeds, expectedKind } from "../../scripts/release/inspect.ts";
import { targetByName } from "../../scripts/release/targets.ts";
import { ROOT } from "../helpers/cli.ts";
import { tempDir } from "../helpers/repo.ts";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

describe("bun run release", () => {
  test("--only darwin-arm64: a Mach-O arm64 binary in wt-loop-<version>-darwin-arm64.tar.gz, its SHA-256 in SHA256SUMS", async () => {
    const out = tempDir("wt-loop-release-");
    const r = Bun.spawnSync([process.execPath, "scripts/release/main.ts", "--only", "darwin-arm64", "--allow-missing-native", "--out", out], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ code: r.exitCode, err: r.stderr.toString() }).toEqual({ code: 0, err: "" });
    const archive = `wt-loop-${pkg.version}-darwin-arm64.tar.gz`;
    const bytes = readFileSync(join(out, archive));
    const sum = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    expect(readFileSync(join(out, "SHA256SUMS"), "utf8")).toBe(`${sum}  ${archive}\n`);
    const list = Bun.spawnSync(["tar", "-tzf", join(out, archive)])
      .stdout.toString()
      .split("\n");
    expect(list).toContain("wt-loop");
    const x = tempDir("wt-loop-unpacked-");
    expect(Bun.spawnSync(["tar", "-xzf", join(out, archive), "-C", x]).exitCode).toBe(0);
    expect(binaryKind(readFileSync(join(x, "wt-loop")))).toEqual({ format: "mach-o", arch: "arm64" });
    const manifest = JSON.parse(readFileSync(join(out, "release.json"), "utf8"));
    expect(manifest.entries).toEqual([expect.objectContaining({ target: "darwin-arm64", archive, sha256: sum, archiveBytes: bytes.length })]);
    // The native library is embedded when the registry has it at @opentui/core's version; else the manifest says why not.
    const entry = manifest.entries[0];
    if (entry.screen) expect(list.some((f: string) => f.startsWith("licenses/@opentui/core-darwin-arm64/"))).toBe(true);
    else expect(entry.native).toMatch(/^@opentui\/core-darwin-arm64@\S+ (is not on the npm registry|could not be fetched|has no)/);
  }, 300_000);

  test("an unknown platform is refused, naming the ones there are", () => {
    const r = Bun.spawnSync([process.execPath, "scripts/release/main.ts", "--only", "plan9-x64"], { cwd: ROOT, stderr: "pipe" });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toContain("Unknown target plan9-x64. Targets: linux-x64, linux-arm64, linux-x64-musl, darwin-arm64, darwin-x64");
  });
});

describe("reading a binary's kind", () => {
  const elf = (machine: number, interp: string) => {
    const b = Buffer.alloc(512);
    b.writeUInt32BE(0x7f454c46, 0);
    b.writeUInt16LE(machine, 18);
    b.write(interp, 300, "latin1");
    return b;
  };
  const macho = (cpu: number) => {
    const b = Buffer.alloc(64);
    b.writeUInt32LE(0xfeedfacf, 0);
    b.writeUInt32LE(cpu, 4);
    return b;
  };
  test.each([
    ["linux-x64", elf(0x3e, "/lib64/ld-linux-x86-64.so.2")],
    ["linux-arm64", elf(0xb7, "/lib/ld-linux-aarch64.so.1")],
    ["linux-x64-musl", elf(0x3e, "/lib/ld-musl-x86_64.so.1")],
    ["darwin-arm64", macho(0x0100000c)],
    ["darwin-x64", macho(0x01000007)],
  ])("%s", (name, bytes) => {
    expect(binaryKind(bytes)).toEqual(expectedKind(targetByName(name)!));
  });
  test("an unknown file is neither", () => {
    expect(binaryKind(Buffer.from("#!/bin/sh\necho hi\n"))).toEqual({ format: "unknown", arch: "unknown" });
  });
  test("a library is found inside a binary only whole", () => {
    const lib = Buffer.alloc(10_000, 7);
    lib.write("the library", 5000);
    expect(embeds(Buffer.concat([Buffer.alloc(99, 1), lib, Buffer.alloc(50)]), lib)).toBe(true);
    expect(embeds(Buffer.concat([Buffer.alloc(99, 1), lib.subarray(0, 9000), Buffer.alloc(5000)]), lib)).toBe(false);
  });
});
