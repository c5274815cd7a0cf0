import { describe, expect, test } from "bun:test";
import { table } from "../../src/text/format.ts";

/** The table as it was written before its loops (three passes of callbacks): the layout it must keep, byte for byte. */
function tableBefore(rows: string[][]): string {
  const measured = rows.map((r) => r.map((c) => Bun.stringWidth(c)));
  const widths = rows[0]?.map((_, i) => measured.reduce((w, m) => Math.max(w, m[i] ?? 0), 0)) ?? [];
  return rows
    .map((r, n) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c + " ".repeat(Math.max(0, widths[i]! - measured[n]![i]!))))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

// A small deterministic generator: the same tables on every run.
function random(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % n;
  };
}

const PIECES = ["", " ", "a", "story", "12,345", "$0.12", "界", "é", "👍🏽", "  trailing  ", "tab\there", "-"];

describe("table", () => {
  test("pads every column but the last to its widest cell, by display columns", () => {
    expect(
      table([
        ["#", "story", "why"],
        ["10", "界界", "x"],
        ["2", "a", ""],
      ]),
    ).toBe("#   story  why\n10  界界   x\n2   a");
  });

  test("lays out 3,000 generated tables exactly as before: ragged rows, wide characters, empty cells, trailing spaces", () => {
    const r = random(31);
    for (let t = 0; t < 3000; t++) {
      const rows = Array.from({ length: r(6) }, () =>
        Array.from({ length: r(6) }, () => Array.from({ length: r(4) }, () => PIECES[r(PIECES.length)]).join("")),
      );
      expect(table(rows)).toBe(tableBefore(rows));
    }
  });
});
