import { describe, expect, test } from "bun:test";
import { osc0, setTitle } from "../../src/term/title.ts";
import { field, formatCost, formatDuration, formatTokens, truncate } from "../../src/text/format.ts";
import { renderEvent, useColor } from "../../src/term/render.ts";
import { windowTitle } from "../../src/text/window-title.ts";

describe("titles", () => {
  test("OSC 0 with control characters neutralized", () => {
    expect(osc0("Ralph: wt [1/30]")).toBe("\x1b]0;Ralph: wt [1/30]\x07");
    expect(osc0("a\x07b\x1bc\x9cd\ne")).toBe("\x1b]0;a^Gb^[c\\x9cd e\x07");
  });
  test("written only to a TTY", () => {
    const out: string[] = [];
    setTitle("T", { isTTY: false, write: (s) => out.push(s) }, {});
    expect(out).toEqual([]);
    setTitle("T", { isTTY: true, write: (s) => out.push(s) }, {});
    expect(out).toEqual(["\x1b]0;T\x07"]);
  });
  // The spec's `Ralph: {worktree} [{i}/{max}]`, built in one place for every phase; lanes (`--parallel`) add their count after it.
  test("the window title: the spec's form, and the lanes after it", () => {
    expect(windowTitle("wt", "3/10")).toBe("Ralph: wt [3/10]");
    expect(windowTitle("wt", "done")).toBe("Ralph: wt [done]");
    expect(windowTitle("wt", "3/10", 2)).toBe("Ralph: wt [3/10] · 2 lanes");
    expect(windowTitle("wt", "3/10", 1)).toBe("Ralph: wt [3/10] · 1 lane");
  });
});

describe("format", () => {
  test.each([
    [0, "0s"],
    [59_400, "59s"],
    [65_000, "1m 05s"],
    [3_723_000, "1h 02m"],
    [-1, "-"],
  ])("duration %p → %p", (ms, s) => expect(formatDuration(ms)).toBe(s));
  test("tokens have thousands separators; cost is USD", () => {
    for (const n of [0, 7, 999, 1000, 12345, 1234567, -1234, 2 ** 53 - 1, 1.5, 2 ** 60]) expect(formatTokens(n)).toBe(n.toLocaleString("en-US"));
    expect(formatCost(3.256)).toBe("$3.26");
    expect(formatCost(0.0014)).toBe("$0.0014");
    expect(formatCost(null)).toBe("-");
  });
  test.each([
    ["short", 10, "short"],
    ["0123456789abc", 10, "012345678…"],
  ])("truncate(%p, %p) → %p", (text, width, out) => expect(truncate(text, width)).toBe(out));
  test.each([
    ["short", 10, "short"],
    ["0123456789abc", 10, "012345678… (4 more characters; --json has all)"],
    ["first\nsecond", 10, "first… (7 more characters; --json has all)"],
    ["x".repeat(2_000_000), 5, "xxxx… (1,999,996 more characters; --json has all)"],
  ])("field(%p, %p): the first line, cut, saying what is left out", (text, width, out) => expect(field(text, width)).toBe(out));
  test("a cut value keeps more than its first line when asked", () =>
    expect(truncate("ab\ncdefgh", 6, { rest: "see x" })).toBe("ab\ncd… (4 more characters; see x)"));
});

describe("render", () => {
  test("colour only on a TTY without NO_COLOR", () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
  });
  test("messages are shown whole; --story filters other stories' messages out", () => {
    const e = { type: "StoryEvent", story_id: "2", event: { type: "Message", text: "line1\nline2" } } as const;
    expect(renderEvent(e, { color: false }).join("\n")).toBe("  line1\n  line2");
    expect(renderEvent(e, { color: false, story: "1" })).toEqual([]);
    expect(renderEvent({ type: "Error", message: "boom" }, { color: false, story: "1" })).toEqual(["✖ boom"]);
  });
});
