/**
 * The clock the commands see. wt-loop's binary has no setting for "now" (its tests pass `now` to the
 * views in-process), so the checker fixes it from outside with libfaketime (`apt-get install faketime`):
 * every run then reads the same instant, NOW, and a time-dependent line ("3m ago", "running for 26h")
 * is compared as it is. Without libfaketime the clock runs, and the parts of the output that depend on
 * it are masked before comparing (`mask`): a difference there goes unseen, and the report says so.
 */
import { existsSync } from "node:fs";
import { NOW } from "./times.ts";

const LIBS = ["x86_64-linux-gnu", "aarch64-linux-gnu", ""].flatMap((arch) =>
  ["/usr/lib", "/usr/local/lib"].map((dir) => `${dir}/${arch ? `${arch}/` : ""}faketime/libfaketimeMT.so.1`),
);

/** The environment that fixes the clock at NOW, or null when libfaketime is missing or does not work here. */
export function fixedClock(): Record<string, string> | null {
  const lib = LIBS.find((p) => existsSync(p));
  if (!lib) return null;
  const env = {
    LD_PRELOAD: lib,
    // No "@": the clock stands still at that instant (seconds since the epoch: whatever TZ a run has).
    FAKETIME_FMT: "%s",
    FAKETIME: String(NOW / 1000),
    FAKETIME_NO_CACHE: "1",
    // Timers and waits run on the monotonic clock: left real, so nothing waits forever.
    FAKETIME_DONT_FAKE_MONOTONIC: "1",
    // File times stay real: the state files are written now, by the checker.
    NO_FAKE_STAT: "1",
  };
  const probe = Bun.spawnSync(["date", "+%s"], { env: { ...process.env, ...env, TZ: "UTC" }, stdout: "pipe" });
  return probe.stdout.toString().trim() === String(NOW / 1000) ? env : null;
}

/** The clock's traces in an output, when it is not fixed: times of day, ISO times, durations and ages. */
export function mask(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, "<time>")
    .replace(/\b\d{1,2}:\d{2}(:\d{2})?\b/g, "<clock>")
    .replace(/"(\w*_ms)": \d+/g, '"$1": <ms>')
    .replace(/\b\d+(\.\d+)?\s?(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)\b/g, "<duration>");
}
