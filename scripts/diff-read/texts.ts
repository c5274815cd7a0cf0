/**
 * The texts a user's bad day puts in a title, a task, a reason or a note: wide characters (CJK, emoji,
 * joined emoji, flags), combining marks, control characters, ANSI escapes a repository (or an agent)
 * could plant, right-to-left text, lone surrogates, and very long ones.
 */
import type { Rng } from "./rng.ts";

export const NASTY = [
  "修复登录页面的表单验证",
  "テストを追加する",
  "한국어 제목",
  "Emoji 🚀 launch 🎉",
  "Family 👨‍👩‍👧‍👦 and flag 🇯🇵 and skin 👍🏽",
  "e\u0301 combining a\u0308 marks",
  "tab\there and\r\ncrlf",
  "bell\x07 nul\x00 del\x7f esc\x1b",
  "\x1b[31mred\x1b[0m and \x1b]0;title\x07 osc",
  "\x1b[2J\x1b[H cleared screen",
  "\u202eright-to-left override\u202c",
  "שלום עולם mixed RTL",
  "zero\u200bwidth\u200dspace",
  "lone surrogate \ud800 here",
  "backslash \\ quote \" apostrophe ' backtick `",
  "trailing spaces   ",
  "   leading spaces",
  "",
  " ",
  "%s %d ${x} $(rm -rf /) `id`",
  "<b>html</b> &amp; **markdown** | pipe | table |",
  "\u00a0non-breaking\u00a0spaces\u3000ideographic",
  "full-width ＡＢＣ１２３",
  "line\u2028separator\u2029paragraph",
];

const WORDS = ["set", "up", "the", "database", "fix", "tests", "parser", "CLI", "docs", "render", "状态", "🔥", "receipt", "lanes", "budget"];

/** A plain title of a few words. */
export function plain(r: Rng, words = r.int(1, 6)): string {
  return Array.from({ length: words }, () => r.pick(WORDS)).join(" ");
}

/** A text for a field a person wrote or an agent said: mostly plain, often nasty, sometimes very long. */
export function text(r: Rng): string {
  return r.weighted<() => string>([
    [5, () => plain(r)],
    [4, () => r.pick(NASTY)],
    [2, () => `${plain(r)} ${r.pick(NASTY)} ${plain(r)}`],
    [1, () => long(r)],
  ])();
}

/** A few thousand characters, with wide and control ones among them, or one word with no space to break at. */
export function long(r: Rng): string {
  if (r.chance(0.3)) return "x".repeat(r.int(300, 5000));
  return Array.from({ length: r.int(50, 600) }, () => (r.chance(0.1) ? r.pick(NASTY) : plain(r))).join(" ");
}
