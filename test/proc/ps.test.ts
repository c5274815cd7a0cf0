// What `ps` and `lsof` print, as macOS (BSD) and Linux (procps) print it, read into the facts the
// identity check compares. Real processes go through both in pid.test.ts; these are the formats.
import { describe, expect, test } from "bun:test";
import { parseLsof, parsePs } from "../../src/proc/ps.ts";

describe("parsePs", () => {
  test.each([
    [
      "procps, a padded day",
      "  4242 Thu Nov  5 09:03:07 2026     1  4242 Ss   /usr/bin/bun /w/src/cli.ts run",
      { started: "Thu Nov 5 09:03:07 2026", ppid: 1, pgrp: 4242, state: "S", text: "/usr/bin/bun /w/src/cli.ts run" },
    ],
    [
      "macOS, a path with spaces",
      "4242 Wed Nov 25 12:20:17 2026   900  4242 S+   /Users/J Doe/bin/wt-loop start x",
      { started: "Wed Nov 25 12:20:17 2026", ppid: 900, pgrp: 4242, state: "S", text: "/Users/J Doe/bin/wt-loop start x" },
    ],
    ["a zombie", " 77 Wed Nov 25 12:20:17 2026 1 77 Z <defunct>", { state: "Z", text: "<defunct>" }],
  ])("%s", (_name, line, want) => {
    expect(parsePs(`${line}\n`).get(Number(line.trim().split(" ")[0]))).toMatchObject(want);
  });

  test("one line per pid; nothing for a pid not shown, or for garbage", () => {
    const out = parsePs("  10 Wed Nov 25 12:20:17 2026 1 10 S a\n  11 Wed Nov 25 12:20:18 2026 10 10 R b c\nps: bad option\n");
    expect([...out.keys()]).toEqual([10, 11]);
    expect(out.get(11)).toMatchObject({ ppid: 10, pgrp: 10, text: "b c" });
  });
});

describe("parseLsof", () => {
  test.each([
    [
      "macOS: the program is the first txt, dyld and libraries follow",
      "p4242\nfcwd\nn/Users/me/repo\nftxt\nn/usr/local/bin/wt-loop\nftxt\nn/usr/lib/dyld\n",
      { cwd: "/Users/me/repo", exe: "/usr/local/bin/wt-loop" },
    ],
    ["Linux, a replaced binary", "p4242\nfcwd\nn/w\nftxt\nn/opt/wt-loop (deleted)\n", { cwd: "/w", exe: "/opt/wt-loop" }],
    ["no such process (no output)", "", { cwd: null, exe: null }],
  ])("%s", (_name, out, want) => {
    expect(parseLsof(out)).toEqual(want);
  });
});
