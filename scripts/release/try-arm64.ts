/**
 * Runs the linux-arm64 release binary for real on this x64 machine, under qemu-user: `--version`,
 * `doctor` and `demo` end to end (`bun scripts/release/try-arm64.ts`; it builds the binary with
 * `bun run release --only linux-arm64` when dist/release has none).
 *
 * wt-loop runs itself again (the demo's agent is `wt-loop demo-agent`): that exec of an arm64 file
 * must go through qemu too. The kernel does that through binfmt_misc; this registers qemu there
 * inside a private user and mount namespace (Linux ≥ 6.7 gives each its own binfmt_misc), so the
 * machine's own registrations are never touched.
 *
 * Where qemu, the arm64 C library or user namespaces are missing it says so in one line and exits 0.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { $ } from "bun";
import { ROOT } from "./natives.ts";

const QEMU = "/usr/bin/qemu-aarch64-static";
// Debian's libc6-arm64-cross: the loader and C library the arm64 binary links against.
const SYSROOT = "/usr/aarch64-linux-gnu";
const skip = (why: string): never => {
  console.log(`SKIPPED the linux-arm64 run: ${why}`);
  process.exit(0);
};
if (!existsSync(QEMU)) skip(`${QEMU} is missing (apt-get install qemu-user-static)`);
if (!existsSync(join(SYSROOT, "lib/ld-linux-aarch64.so.1"))) skip(`${SYSROOT} has no arm64 C library (apt-get install libc6-arm64-cross)`);
if ((await $`unshare --user --map-root-user --mount true`.nothrow().quiet()).exitCode !== 0) skip("user namespaces are not available (unshare --user failed)");

const bin = process.argv[2] ?? join(ROOT, "dist/release/stage/linux-arm64/wt-loop");
if (!existsSync(bin)) await $`bun scripts/release/main.ts --only linux-arm64 --allow-missing-native`.cwd(ROOT);

// The standard registration of Debian's qemu-user-static for aarch64 ELF files (F: qemu opened now).
const REGISTER = String.raw`:qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:${QEMU}:F`;
const SETUP = `mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc && printf '%s' "$REGISTER" > /proc/sys/fs/binfmt_misc/register && cd "$WHERE" && exec "$@"`;

async function arm64(where: string, ...args: string[]) {
  const started = performance.now();
  const r = await $`unshare --user --map-root-user --mount sh -c ${SETUP} sh ${bin} ${args}`
    .env({ ...process.env, REGISTER, WHERE: where, QEMU_LD_PREFIX: SYSROOT, NO_COLOR: "1", TMPDIR: where })
    .nothrow()
    .quiet();
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString(), seconds: (performance.now() - started) / 1000 };
}

const failures: string[] = [];
const check = (what: string, ok: boolean, out: string) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(`${what}:\n${out}`);
};

const scratch = mkdtempSync(join(tmpdir(), "wt-loop-arm64-"));
const v = await arm64(scratch, "--version");
check(`--version: ${v.out.trim()} (${v.seconds.toFixed(1)} s)`, v.code === 0 && /^wt-loop \S+ \(commit \S+, linux-arm64/.test(v.out), v.out);

await $`git init -q -b main ${join(scratch, "repo")}`.quiet();
const d = await arm64(join(scratch, "repo"), "doctor", "--agent", "command", "--agent-cmd", "cat", "--terminal", "inline");
check(`doctor, exit ${d.code} (${d.seconds.toFixed(1)} s)`, d.code === 0 && d.out.includes("✓ git"), d.out);

const demo = await arm64(scratch, "demo");
const repo = /Demo repository: (\S+)/.exec(demo.out)?.[1];
const branch = repo ? (await $`git -C ${repo} branch --show-current`.nothrow().quiet()).stdout.toString().trim() : "";
check(
  `demo, exit ${demo.code}, branch ${branch || "none"} (${demo.seconds.toFixed(1)} s)`,
  demo.code === 0 && demo.out.includes("Loop done") && branch === "ralph/add-greeting",
  demo.out,
);

if (failures.length) {
  console.error(failures.join("\n\n"));
  process.exit(1);
}
console.log(`the linux-arm64 binary ran --version, doctor and demo under ${QEMU}`);
