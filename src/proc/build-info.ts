/**
 * What `wt-loop --version` says about the binary: the version, the commit it was built from and the
 * platform it was built for. The build (scripts/release/compile.ts) stamps them in as the constant
 * WT_LOOP_BUILD; run from source there is no stamp, and the line says so.
 */
declare const WT_LOOP_BUILD: string | undefined;

export interface BuildStamp {
  /** The commit's short hash, with `-dirty` when the tree had uncommitted changes; null outside git. */
  commit: string | null;
  /** `linux-x64`, `linux-arm64`, `linux-x64-musl`, `darwin-arm64`, `darwin-x64`. */
  target: string;
  /** Whether the full screen's native library is inside the binary (else the loop is shown as lines). */
  screen: boolean;
}

export const buildStamp = (): BuildStamp | null => (typeof WT_LOOP_BUILD === "string" ? (JSON.parse(WT_LOOP_BUILD) as BuildStamp) : null);

/** `wt-loop 0.1.0 (commit 1a2b3c4, linux-arm64)`; from source `wt-loop 0.1.0 (source, linux-x64)`. */
export function versionLine(version: string, stamp: BuildStamp | null = buildStamp()): string {
  if (!stamp) return `wt-loop ${version} (source, ${process.platform}-${process.arch})`;
  const screen = stamp.screen ? "" : ", no full screen";
  return `wt-loop ${version} (commit ${stamp.commit ?? "unknown"}, ${stamp.target}${screen})`;
}
