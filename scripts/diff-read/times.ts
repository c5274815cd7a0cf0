/**
 * Times as the state files hold them. The checker's clock is fixed at NOW (clock.ts); the loops ran
 * around it. Our state takes any ISO 8601 time with a zone (`Z` or an offset, any fraction); the
 * seed's file holds whatever wt-tools' bash wt-loop wrote with `date`, and worse.
 */
import type { Rng } from "./rng.ts";

/** The checker's "now" (UTC): the loops generated ran the day before. */
export const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
export const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");

/** `ms` as local time at `offsetMin` from UTC: `2026-11-21T11:00:00`, and the zone apart. */
function local(ms: number, offsetMin: number): string {
  const d = new Date(ms + offsetMin * 60_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
const zone = (offsetMin: number, colon = true) =>
  `${offsetMin < 0 ? "-" : "+"}${pad(Math.trunc(Math.abs(offsetMin) / 60))}${colon ? ":" : ""}${pad(Math.abs(offsetMin) % 60)}`;
const OFFSETS = [0, 60, -480, 330, 345, -210, 840, -720];

/** A time our state's schema accepts (a zone always), in one of the forms a writer may give. */
export function iso(r: Rng, ms: number): string {
  const off = r.pick(OFFSETS);
  return r.weighted<() => string>([
    [8, () => new Date(ms).toISOString()],
    [1, () => `${local(ms, 0)}Z`],
    [1, () => `${local(ms, off)}${zone(off)}`],
    [1, () => `${local(ms, off)}.${pad(ms % 1000, 3)}456${zone(off)}`],
    [1, () => `${local(ms, 0)}.${String(ms % 1000)[0] ?? "0"}Z`],
  ])();
}

/** The shapes of a time in the seed's file: what `date` writes (`-Iseconds`, `+%FT%T%z`, `-Ins`, `-u`, `-R`, `+%s`), and junk. */
export const SEED_TIME_SHAPES: readonly (readonly [number, (ms: number, off: number) => unknown])[] = [
  [6, (ms, off) => `${local(ms, off)}${zone(off)}`], // date -Iseconds
  [2, (ms, off) => `${local(ms, off)}${zone(off, false)}`], // date +%Y-%m-%dT%H:%M:%S%z
  [2, (ms, off) => `${local(ms, off)},${pad(ms % 1000, 3)}123456${zone(off)}`], // date -Ins (a comma)
  [2, (ms) => `${local(ms, 0)}Z`], // date -u +%FT%TZ
  [2, (ms, off) => local(ms, off)], // no zone at all: read as local time
  [1, (ms, off) => local(ms, off).replace("T", " ")], // date '+%F %T'
  [1, (ms, off) => `${local(ms, off)}.${pad(ms % 1000, 3)}${zone(off)}`],
  [1, (ms) => new Date(ms).toUTCString()], // date -R / -u
  [1, (ms) => String(Math.floor(ms / 1000))], // date +%s
  [1, (ms) => Math.floor(ms / 1000)], // a number, not a string
  [1, () => ""],
  [1, () => null],
  [1, () => "not a time"],
  [1, () => "2026-13-45T25:61:61Z"],
  [1, () => "+010000-01-01T00:00:00.000Z"], // past year 9999
  [1, () => "9999-12-31T23:59:59.999Z"], // the last time a state holds
  [1, () => "0000-01-01T00:00:00Z"], // the first
  [1, () => "-000001-01-01T00:00:00Z"],
  [1, () => "2026-11-21T10:00:05+25:00"],
];
export const OFFSETS_SHOWN = OFFSETS;

/** A time as the seed's bash wt-loop may have written it, in one of SEED_TIME_SHAPES. */
export function seedTime(r: Rng, ms: number): unknown {
  const off = r.pick(OFFSETS);
  return r.weighted(SEED_TIME_SHAPES)(ms, off);
}
