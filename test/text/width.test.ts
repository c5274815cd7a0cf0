// The one wrap and cut of every terminal view: by display columns, between grapheme clusters, at words.
import { describe, expect, test } from "bun:test";
import { cells, clip, cut, fit, wrapLine, wrapText } from "../../src/text/width.ts";
import { table, truncate } from "../../src/text/format.ts";

const FAMILY = "👨‍👩‍👧"; // one cluster of five code points, two columns
const FLAG = "🇫🇷";
const ACCENT = "e\u0301"; // e + combining acute: one cluster, one column

describe("wrapLine", () => {
  test("breaks at spaces, never inside a word that fits a row; the spaces at a break go", () => {
    const rows = wrapLine("The agent should remember to update tasks.md before it says COMPLETE", 20);
    expect(rows).toEqual(["The agent should", "remember to update", "tasks.md before it", "says COMPLETE"]);
    for (const r of rows) expect(cells(r)).toBeLessThanOrEqual(20);
  });

  test("a line that fits is one row as it is; an empty line is one empty row", () => {
    expect(wrapLine("short", 20)).toEqual(["short"]);
    expect(wrapLine("", 20)).toEqual([""]);
    expect(wrapText("a\n\nb", 5)).toEqual(["a", "", "b"]);
  });

  test("continuation rows keep the line's indent, so a list item stays under its text", () => {
    expect(wrapLine("  - a list item that is long enough to wrap", 20)).toEqual(["  - a list item that", "  is long enough to", "  wrap"]);
  });

  test("a word longer than a row is cut between its characters, filling rows", () => {
    expect(wrapLine(`${"a".repeat(45)} b`, 20)).toEqual(["a".repeat(20), "a".repeat(20), `${"a".repeat(5)} b`]);
  });

  test("wide characters count two columns; clusters stay whole (emoji sequences, flags, combining accents)", () => {
    const cjk = wrapLine("日本語のテキストはここで折り返す", 11);
    for (const r of cjk) expect(cells(r)).toBeLessThanOrEqual(11);
    expect(cjk.join("")).toBe("日本語のテキストはここで折り返す");
    const mixed = wrapLine(`${FAMILY}${FAMILY}${FAMILY}${FLAG}${FLAG}${ACCENT}${ACCENT}`, 4);
    expect(mixed).toEqual([`${FAMILY}${FAMILY}`, `${FAMILY}${FLAG}`, `${FLAG}${ACCENT}${ACCENT}`]);
    for (const r of mixed) expect(r).not.toContain("\uFFFD");
  });
});

describe("cut, clip, fit", () => {
  test("cut ends in … within the columns; clip cuts without a mark; neither splits a cluster", () => {
    expect(cut("🎉 Party time", 5)).toBe("🎉 P…");
    expect(cells(cut("🎉 Party time", 5))).toBe(5);
    expect(clip(`ab${FAMILY}cd`, 3)).toBe("ab");
    expect(clip(`ab${FAMILY}cd`, 4)).toBe(`ab${FAMILY}`);
    expect(cut("日本語です", 6)).toBe("日本…");
    expect(cut("fits", 4)).toBe("fits");
    expect(cut("anything", 0)).toBe("");
  });

  test("fit pads to exactly the columns, wide characters counted two", () => {
    expect(fit("日本", 6)).toBe("日本  ");
    expect(cells(fit("日本語です", 7))).toBe(7);
  });

  test("truncate and table measure columns, not UTF-16 units", () => {
    expect(truncate(`${FAMILY} family`, 4)).toBe(`${FAMILY} …`);
    const rows = table([
      ["日本", "x"],
      ["ab", "y"],
    ]).split("\n");
    expect(rows.map((r) => cells(r))).toEqual([7, 7]);
  });
});
