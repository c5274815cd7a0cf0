/**
 * The platforms a release is built for: Bun's compile target and the OpenTUI package holding that
 * platform's native library (the full screen's renderer, loaded by @opentui/core by package name).
 */
export interface Target {
  /** `<os>-<arch>[-musl]`: the archive's name and what `wt-loop --version` says. */
  name: string;
  /** `bun build --compile --target=…` (its runtime comes from the npm registry, cached by Bun). */
  bun: string;
  /** The package with libopentui.{so,dylib}, at @opentui/core's own version. */
  native: string;
  /** The native library's file inside that package. */
  library: string;
  os: "linux" | "darwin";
  arch: "x64" | "arm64";
  /** @opentui/core picks the musl package only when OPENTUI_LIBC=musl; the musl build fixes it so. */
  musl?: boolean;
}

const t = (os: Target["os"], arch: Target["arch"], musl = false): Target => {
  const name = `${os}-${arch}${musl ? "-musl" : ""}`;
  return { name, bun: `bun-${name}`, native: `@opentui/core-${name}`, library: os === "darwin" ? "libopentui.dylib" : "libopentui.so", os, arch, musl };
};

export const TARGETS: Target[] = [t("linux", "x64"), t("linux", "arm64"), t("linux", "x64", true), t("darwin", "arm64"), t("darwin", "x64")];

/** The target of the machine this runs on (what `bun run build` builds for). */
export function hostTarget(): Target {
  const name = `${process.platform}-${process.arch}`;
  const found = TARGETS.find((x) => x.name === name);
  if (!found) throw new Error(`wt-loop is not built for ${name}; targets: ${TARGETS.map((x) => x.name).join(", ")}`);
  return found;
}

export const targetByName = (name: string) => TARGETS.find((x) => x.name === name);
