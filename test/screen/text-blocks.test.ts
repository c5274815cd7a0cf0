// A tab's text in blocks, wrapped at words: the height is exact at every width (scrolling and following the
// tail depend on it), the rows never break a word that fits, and a block kept on disk is read back only when
// its rows must be counted at a new width or it is on screen.
import { expect, test } from "bun:test";
import { block, BlockList } from "../../src/screen/text-blocks.ts";
import { cells, measureByCodePoint, wrapText } from "../../src/text/width.ts";

const MESSAGE = "I will remember to update tasks.md once the tests pass, then say COMPLETE at the very end.\nshort line";
const rowsText = (list: BlockList, width: number) => list.window(width, 0, 1000).map((l) => l.map((s) => s.text).join(""));

test("rows at words, counted exactly, for blocks held and blocks read back from disk", () => {
  let loads = 0;
  const list = new BlockList();
  list.rows(30); // the tab is on screen: blocks are counted as they come
  list.push(block(MESSAGE, "normal"));
  list.push(block(MESSAGE, "normal", { load: () => (loads++, MESSAGE) }));
  expect(loads).toBe(0); // counted from the text at hand when it came
  const expected = [...wrapText(MESSAGE, 30), ...wrapText(MESSAGE, 30)];
  expect(list.rows(30)).toBe(expected.length);
  expect(rowsText(list, 30)).toEqual(expected);
  expect(rowsText(list, 30).join(" ")).toContain("remember to update tasks.md");
  expect(expected.some((r) => r.endsWith("remem") || r.startsWith("ber"))).toBe(false);
  // Another width: counted again, the block on disk read back once for it.
  const narrow = [...wrapText(MESSAGE, 17), ...wrapText(MESSAGE, 17)];
  expect(list.rows(17)).toBe(narrow.length);
  expect(rowsText(list, 17)).toEqual(narrow);
  // A window from the middle: the same rows as the whole, sliced.
  expect(list.window(17, 3, 4).map((l) => l[0]!.text)).toEqual(narrow.slice(3, 7));
});

test("a block no wider than the body is one row a line, never read back to count it", () => {
  let loads = 0;
  const list = new BlockList();
  list.push(block("one\ntwo", "normal", { load: () => (loads++, "one\ntwo") }));
  expect(list.rows(40)).toBe(2);
  expect(loads).toBe(0);
});

test("a line past 20,000 columns (minified code, base64) is cut at the width: its rows are its width alone", () => {
  const long = "x".repeat(25_000);
  const list = new BlockList();
  list.push(block(`${long.slice(0, 12_500)} ${long.slice(0, 12_499)}`));
  expect(list.rows(100)).toBe(250);
  expect(list.window(100, 249, 5).map((l) => l[0]!.text.length)).toEqual([100]);
});

test("blocks measured before the renderer said it counts by code point are measured and wrapped again", () => {
  const family = "👨‍👩‍👧"; // two columns as one cluster, six by code point
  const text = `${family.repeat(4)} and then some words`;
  const list = new BlockList();
  list.rows(12);
  list.push(block(text, "normal"));
  list.push(block(text, "normal", { load: () => text }));
  const before = list.rows(12);
  try {
    measureByCodePoint(true);
    const after = wrapText(text, 12);
    expect(after.length).toBeGreaterThan(before / 2);
    expect(list.rows(12)).toBe(2 * after.length);
    expect(rowsText(list, 12)).toEqual([...after, ...after]);
    for (const r of rowsText(list, 12)) expect(cells(r)).toBeLessThanOrEqual(12);
    list.push(block(text, "normal")); // measured already by code point
    expect(list.rows(12)).toBe(3 * after.length);
  } finally {
    measureByCodePoint(false);
  }
});
