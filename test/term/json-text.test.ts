/**
 * `--json`'s text (term/print.ts `jsonText`) skips the scan for DEL and the C1 controls when the text can hold
 * none: it must stay byte for byte what the scan on every text gave (the reference below, print.ts before).
 */
import { expect, test } from "bun:test";
import { jsonText } from "../../src/term/print.ts";

const reference = (value: unknown) => JSON.stringify(value, null, 2).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const pieces = ["plain", "", " ", "\x7e", "\x7f", "\xa0", "é", "ÿ", "Ā", "中文", "👍", "\ud800", "\udc00", "\u2028", "\x1b[31m", '\t\n"\\'];
for (let c = 0x80; c <= 0x9f; c++) pieces.push(String.fromCharCode(c));

test("every control, every width of character, alone and among others: the same text as the scan on every text", () => {
  const values: unknown[] = [];
  for (const p of pieces) values.push(p, { story: p, n: 1 }, [`a${p}b`, { deep: { reason: `${p}${p}` } }]);
  for (const p of pieces) for (const q of pieces) values.push({ a: p, b: [q, 12.5, null, true] });
  // Only a non-ASCII text far from where a scan would start, and a DEL at the very end.
  values.push({ long: `${"x".repeat(5000)}\x85` }, { long: `${"x".repeat(5000)}é` }, `${"y".repeat(3000)}\x7f`);
  for (const v of values) expect(jsonText(v)).toBe(reference(v));
});
