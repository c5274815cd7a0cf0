import { describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  LinkRefused,
  loopRoot,
  makeDir,
  openSafe,
  refuseLinks,
  removeDeadTemps,
  removeFileSafe,
  removeSafe,
  renameSafe,
  writeFileSafe,
  writeRecordSafe,
} from "../../src/proc/safe-fs.ts";
import { tempDir } from "../helpers/repo.ts";

/** A worktree and, outside it, a file and an empty folder that a link may point at. */
function setup() {
  const root = tempDir("safe-fs-");
  const outside = tempDir("outside-");
  const bait = join(outside, ".bashrc");
  writeFileSync(bait, "mine\n");
  const baitDir = join(outside, "folder");
  mkdirSync(baitDir);
  return { root, bait, baitDir };
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return null;
};

describe("safe-fs: nothing is written through a link", () => {
  test("a link as the last component is refused, naming it, its target and how to remove it", () => {
    const { root, bait } = setup();
    mkdirSync(join(root, ".claude"));
    symlinkSync(bait, join(root, ".claude/loop-events.jsonl"));
    const err = refusal(() => openSafe(root, join(root, ".claude/loop-events.jsonl"), "append"));
    expect(err).toBeInstanceOf(LinkRefused);
    expect((err as Error).message).toContain(
      `loop-events.jsonl is a symbolic link (to ${bait}); wt-loop never writes through links it did not make. Remove it: rm `,
    );
    expect(readFileSync(bait, "utf8")).toBe("mine\n");
  });

  test("a link anywhere on the way is refused, not only the last component", () => {
    const { root, baitDir } = setup();
    symlinkSync(baitDir, join(root, ".claude"));
    for (const mode of ["append", "truncate", "create", "read"] as const) {
      expect(refusal(() => openSafe(root, join(root, ".claude/logs/run/iter-001.jsonl"), mode))).toBeInstanceOf(LinkRefused);
    }
    expect(refusal(() => makeDir(root, join(root, ".claude/logs/run")))).toBeInstanceOf(LinkRefused);
    expect(refusal(() => writeFileSafe(root, join(root, ".claude/loop-state.json"), "{}"))).toBeInstanceOf(LinkRefused);
    expect(refusal(() => writeRecordSafe(root, join(root, ".claude/logs/run/iter-001.prompt"), "p"))).toBeInstanceOf(LinkRefused);
    expect(refusal(() => renameSafe(root, join(root, "a"), join(root, ".claude/loop-runs/a")))).toBeInstanceOf(LinkRefused);
    expect(refusal(() => removeSafe(root, join(root, ".claude/logs/run")))).toBeInstanceOf(LinkRefused);
    expect(readdirSync(baitDir)).toEqual([]);
  });

  test("the root itself is trusted (the user chose it), a path outside it is a bug", () => {
    const { root } = setup();
    const via = join(tempDir("via-"), "wt");
    symlinkSync(root, via);
    writeFileSafe(via, join(via, ".claude/loop-state.json"), "{}\n");
    expect(readFileSync(join(root, ".claude/loop-state.json"), "utf8")).toBe("{}\n");
    expect(() => refuseLinks(root, "/etc/passwd")).toThrow("outside");
  });

  test("folders are made one at a time; what is missing is no refusal", () => {
    const { root } = setup();
    refuseLinks(root, join(root, ".claude/logs/x/y"));
    makeDir(root, join(root, ".claude/logs/x"));
    const fd = openSafe(root, join(root, ".claude/logs/x/iter-001.jsonl"), "append");
    writeSync(fd, "line\n");
    closeSync(fd);
    expect(readFileSync(join(root, ".claude/logs/x/iter-001.jsonl"), "utf8")).toBe("line\n");
  });

  test("a whole-file write leaves no temp file, and a planted temp-looking link is never followed", () => {
    const { root, bait } = setup();
    mkdirSync(join(root, ".claude"));
    for (let n = 0; n < 50; n++) symlinkSync(bait, join(root, `.claude/loop-state.json.${process.pid}.${n}.tmp`));
    writeFileSafe(root, join(root, ".claude/loop-state.json"), "{}\n");
    writeFileSafe(root, join(root, ".claude/loop-state.json"), "{ }\n");
    expect(readFileSync(join(root, ".claude/loop-state.json"), "utf8")).toBe("{ }\n");
    expect(
      readdirSync(join(root, ".claude"))
        .filter((f) => !f.startsWith("loop-state.json."))
        .sort(),
    ).toEqual(["loop-state.json"]);
    expect(readdirSync(join(root, ".claude")).length).toBe(51); // the 50 links, none replaced by a temp file
    expect(readFileSync(bait, "utf8")).toBe("mine\n");
  });

  test("a record (an iteration's prompt) is written whole as a state is, only not forced to the disk: replaced, no temp left, never through a link", () => {
    const { root, bait } = setup();
    const prompt = join(root, ".claude/logs/run/iter-001.prompt");
    writeRecordSafe(root, prompt, "first\n");
    writeRecordSafe(root, prompt, "second\n");
    expect(readFileSync(prompt, "utf8")).toBe("second\n");
    expect(readdirSync(join(root, ".claude/logs/run"))).toEqual(["iter-001.prompt"]);
    const planted = join(root, ".claude/logs/run/iter-002.prompt");
    symlinkSync(bait, planted);
    expect(refusal(() => writeRecordSafe(root, planted, "x"))).toBeInstanceOf(LinkRefused);
    expect(readFileSync(bait, "utf8")).toBe("mine\n");
  });

  test("create is exclusive: an existing file or link is not opened", () => {
    const { root, bait } = setup();
    symlinkSync(bait, join(root, "log"));
    expect(refusal(() => openSafe(root, join(root, "log"), "create"))).toBeInstanceOf(LinkRefused);
    writeFileSync(join(root, "plain"), "x");
    expect((refusal(() => openSafe(root, join(root, "plain"), "create")) as { code?: string }).code).toBe("EEXIST");
  });
});

test("loopRoot: the folder holding a loop file's last .claude", () => {
  expect(loopRoot("/w/.claude/logs/run/iter-001.jsonl")).toBe("/w");
  expect(loopRoot("/home/u/.claude/worktrees/x/.claude/loop-events.jsonl")).toBe("/home/u/.claude/worktrees/x");
  expect(loopRoot("/w/.git/info/exclude")).toBe("/w/.git/info");
});

describe("removing what a killed writer left", () => {
  test("removeDeadTemps: only temp names of writers that are gone, never through a linked folder", () => {
    const root = tempDir();
    const dir = join(root, ".claude");
    mkdirSync(dir);
    for (const n of ["s.json.111.0123456789ab.tmp", "s.json.222.0123456789ab.tmp", "s.json.333.tmp", "notes.tmp"]) writeFileSync(join(dir, n), "");
    expect(removeDeadTemps(root, dir, (pid) => pid === 111)).toEqual(["s.json.111.0123456789ab.tmp"]);
    expect(readdirSync(dir).sort()).toEqual(["notes.tmp", "s.json.222.0123456789ab.tmp", "s.json.333.tmp"]);
    const elsewhere = tempDir();
    writeFileSync(join(elsewhere, "x.111.0123456789ab.tmp"), "not ours");
    symlinkSync(elsewhere, join(root, "linked"));
    expect(removeDeadTemps(root, join(root, "linked"), () => true)).toEqual([]);
    expect(readdirSync(elsewhere)).toEqual(["x.111.0123456789ab.tmp"]);
  });

  test("removeFileSafe: a file or a link goes, a folder stays, a linked folder on the way is refused", () => {
    const root = tempDir();
    writeFileSync(join(root, "f"), "");
    mkdirSync(join(root, "d"));
    const elsewhere = tempDir();
    writeFileSync(join(elsewhere, "g"), "precious");
    symlinkSync(elsewhere, join(root, "l"));
    expect(removeFileSafe(root, join(root, "f"))).toBe("removed");
    expect(removeFileSafe(root, join(root, "f"))).toBe("absent");
    expect(removeFileSafe(root, join(root, "d"))).toBe("folder");
    expect(() => removeFileSafe(root, join(root, "l/g"))).toThrow(LinkRefused);
    expect(readFileSync(join(elsewhere, "g"), "utf8")).toBe("precious");
  });
});
