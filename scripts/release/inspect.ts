/**
 * What a built binary is, read from its bytes: the executable format and CPU (ELF or Mach-O, x64 or
 * arm64, glibc or musl), and whether a native library's exact bytes are inside it. The darwin
 * binaries cannot be run here; this is how they are checked.
 */
import { readFileSync } from "node:fs";
import type { Target } from "./targets.ts";

export interface BinaryKind {
  format: "elf" | "mach-o" | "unknown";
  arch: "x64" | "arm64" | "unknown";
  /** For ELF: the dynamic loader asked for (glibc's or musl's). */
  libc?: "glibc" | "musl";
}

const ELF_MACHINE: Record<number, BinaryKind["arch"]> = { 0x3e: "x64", 0xb7: "arm64" };
const MACHO_CPU: Record<number, BinaryKind["arch"]> = { 0x01000007: "x64", 0x0100000c: "arm64" };

export function binaryKind(bytes: Uint8Array): BinaryKind {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.readUInt32BE(0) === 0x7f454c46) {
    const head = b.subarray(0, 8192).toString("latin1");
    const libc = head.includes("ld-musl-") ? "musl" : head.includes("ld-linux") ? "glibc" : undefined;
    return { format: "elf", arch: ELF_MACHINE[b.readUInt16LE(18)] ?? "unknown", libc };
  }
  // MH_MAGIC_64, little-endian (both macOS CPUs are).
  if (b.readUInt32LE(0) === 0xfeedfacf) return { format: "mach-o", arch: MACHO_CPU[b.readUInt32LE(4)] ?? "unknown" };
  return { format: "unknown", arch: "unknown" };
}

/** What the target's binary must be. */
export function expectedKind(t: Target): BinaryKind {
  return t.os === "darwin" ? { format: "mach-o", arch: t.arch } : { format: "elf", arch: t.arch, libc: t.musl ? "musl" : "glibc" };
}

/** Whether `library`'s bytes appear, whole, inside `binary` (found by its first 4 KB, then compared whole). */
export function embeds(binary: Uint8Array, library: Uint8Array): boolean {
  const hay = Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength);
  const lib = Buffer.from(library.buffer, library.byteOffset, library.byteLength);
  const head = lib.subarray(0, 4096);
  for (let at = hay.indexOf(head); at >= 0; at = hay.indexOf(head, at + 1)) if (hay.subarray(at, at + lib.length).equals(lib)) return true;
  return false;
}

/** The problems of a built binary for its target (none: it is what it says). */
export function checkBinary(path: string, t: Target, libraryPath: string | null): string[] {
  const bytes = readFileSync(path);
  const got = binaryKind(bytes);
  const want = expectedKind(t);
  const problems: string[] = [];
  if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${path} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  if (libraryPath && !embeds(bytes, readFileSync(libraryPath))) problems.push(`${path} does not hold ${libraryPath}`);
  return problems;
}
