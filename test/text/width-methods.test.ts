// The two ways a terminal counts columns: by grapheme cluster (the default: plain output, the line stream, a screen
// whose terminal joins clusters) and by code point (wcwidth of each, as tmux 3.x lays text out and the renderer
// then measures), chosen once the screen's renderer says which.
import { afterEach, describe, expect, test } from "bun:test";
import { cells, clip, cut, drawn, measureByCodePoint, widthGeneration, wrapLine } from "../../src/text/width.ts";

const FAMILY = "👨‍👩‍👧"; // 👨 ZWJ 👩 ZWJ 👧
const ACCENT = "e\u0301";

afterEach(() => measureByCodePoint(false));

describe("width methods", () => {
  test("by grapheme cluster (the default) the family is one cluster of two columns", () => {
    expect(cells(FAMILY)).toBe(2);
    expect(cut(`${FAMILY}${FAMILY}`, 3)).toBe(`${FAMILY}…`);
  });

  test("by code point the family is three emoji of two columns (the joiners and variation selectors none)", () => {
    measureByCodePoint(true);
    expect(cells(FAMILY)).toBe(6);
    expect(cells("❤\ufe0f")).toBe(1);
    expect(cells(`a${ACCENT}`)).toBe(2);
    expect(cells("plain ascii")).toBe(11);
    // Cut between code points, each keeping the zero-width ones after it (a joiner, an accent) with it.
    expect(clip(FAMILY, 4)).toBe("👨\u200d👩\u200d");
    expect(cut(`${ACCENT}${ACCENT}${ACCENT}`, 2)).toBe(`${ACCENT}…`);
    for (const r of wrapLine(`the ${FAMILY} family is here, then more words`, 10)) expect(cells(r)).toBeLessThanOrEqual(10);
  });

  test("by code point the screen draws the family unjoined (tmux 3.3a would join it into two columns), as wide", () => {
    expect(drawn(FAMILY)).toBe(FAMILY);
    measureByCodePoint(true);
    expect(drawn(FAMILY)).toBe("👨👩👧");
    expect(cells(drawn(FAMILY))).toBe(cells(FAMILY));
    expect(drawn(`a${ACCENT}`)).toBe(`a${ACCENT}`);
  });

  test("changing the method moves the generation (caches of measures drop theirs); setting it again does not", () => {
    const g = widthGeneration();
    measureByCodePoint(false);
    expect(widthGeneration()).toBe(g);
    measureByCodePoint(true);
    expect(widthGeneration()).toBe(g + 1);
    measureByCodePoint(true);
    expect(widthGeneration()).toBe(g + 1);
  });
});
