// `status` makes the state it shows inert at start-up. Walking it value by value (inertDeep) makes that walk
// hot enough to be compiled, at ~1 ms a run: inertData asks JSON.stringify whether any string could change
// first, and walks only then. It must give what inertDeep gives, for every value a JSON file can hold —
// the same object when nothing changes, an equal one when something does.
import { describe, expect, test } from "bun:test";
import { inertData, inertDeep } from "../../src/term/inert.ts";
import { sampleState } from "../helpers/state.ts";
import { seeded } from "../helpers/seeded.ts";

// Every code unit inertDeep changes or keeps at a boundary, and what JSON.stringify escapes or writes in a way
// that looks like one (a backslash, "\b", "\u00", a lone surrogate).
const PIECES = ["a", " ", "é", "✓", "\\", "\\b", "\\u0001", "u00", "\n", "\t", "\r", "\r\n", "\ud800", '"', "/", "\x7e", "\x7f", "\x80", "\x9f", "\xa0"];
for (let c = 0; c < 0x20; c++) PIECES.push(String.fromCharCode(c));

function text(r: () => number): string {
  let s = "";
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) s += r() < 0.7 ? "abc" : PIECES[Math.floor(r() * PIECES.length)]!;
  return s;
}

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.45) return text(r);
  if (k < 0.55) return Math.floor(r() * 1000) / 7;
  if (k < 0.6) return r() < 0.5;
  if (k < 0.65) return null;
  if (k < 0.8) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) o[r() < 0.9 ? `k${i}` : text(r)] = value(r, depth + 1);
  return o;
}

describe("inertData", () => {
  test("gives what inertDeep gives on 5,000 generated JSON values, the same value when nothing changes", () => {
    const r = seeded(36);
    let changed = 0;
    for (let i = 0; i < 5_000; i++) {
      const v = value(r, 0);
      const want = inertDeep(v);
      const got = inertData(v);
      expect(got).toEqual(want);
      if (want === v) expect(got).toBe(v);
      else changed++;
    }
    expect(changed).toBeGreaterThan(500); // the generator does reach values with something to change
  });

  test("each control character alone, in a key's value deep in a state", () => {
    const s = sampleState();
    expect(inertData(s)).toBe(s);
    for (let c = 0; c <= 0xa0; c++) {
      const ch = String.fromCharCode(c);
      const t = { ...s, current_story: { id: "1", title: `x${ch}y`, index: 1, attempt: 1 } };
      expect(inertData(t)).toEqual(inertDeep(t));
      expect(inertData(t) === t).toBe(inertDeep(t) === t);
    }
  });
});
