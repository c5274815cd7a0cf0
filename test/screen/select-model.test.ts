import { beforeAll, describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { loadSelection } from "../../src/screen/select-data.ts";
import { EMPTY_HINT, EMPTY_SHORT, SelectModel } from "../../src/screen/select-model.ts";
import { frameText, selectionRepo, OPENSPEC_ENV } from "../helpers/select-fixture.ts";
import { makeRepo } from "../helpers/repo.ts";

const wt = (path: string) => ({ path, name: basename(path) });
let repo: { main: string; other: string };

beforeAll(() => {
  repo = selectionRepo();
});

describe("the selection screen", () => {
  test("lists the change with unfinished tasks, the plain tasks.md and the other worktree's loop", async () => {
    const data = await loadSelection(wt(repo.main), OPENSPEC_ENV);
    expect(data.work.map((w) => [w.kind, w.name])).toEqual([
      ["change", "add-greeting"],
      ["tasks-file", "docs/tasks.md"],
    ]);
    const m = new SelectModel(data);
    m.resize(120, 30);
    const f = m.frame(Date.now());
    expect(f.layout).toBe("split");
    expect(f.list.rows.map((r) => [r.title, r.detail, r.selected])).toEqual([
      ["add-greeting", "1/3", true],
      ["docs/tasks.md", "0/1", false],
      ["other", "stuck", false],
    ]);
    const text = frameText(f);
    expect(text).toContain("Stories 0/2 · tasks 1/3");
    expect(text).toContain("1. Greeting  1/2");
    expect(text).toContain("2 pieces of work here · 1 loop in this repository");
  });

  test("↓/j and ↑/k move the selection; Enter asks for a preview or to attach to the loop", async () => {
    const m = new SelectModel(await loadSelection(wt(repo.main), OPENSPEC_ENV));
    m.resize(120, 30);
    expect(m.key("enter")).toEqual({ kind: "preview", id: "add-greeting" });
    expect(m.key("j")).toBeNull();
    expect(m.key("enter")).toEqual({ kind: "preview", id: "docs/tasks.md" });
    m.key("down");
    m.key("down"); // stays on the last row
    const f = m.frame(Date.now());
    expect(f.list.rows.map((r) => r.selected)).toEqual([false, false, true]);
    const text = frameText(f);
    expect(text).toContain("Loop in other  on other");
    expect(text).toContain("stuck");
    expect(text).toContain("Reason     story 2 failed 3 times");
    expect(text).toContain("$1.25");
    expect(m.key("enter")).toEqual({ kind: "attach", worktree: repo.other });
    m.key("k");
    m.key("up");
    expect(m.key("enter")).toEqual({ kind: "preview", id: "add-greeting" });
  });

  test("q and Ctrl-C quit with 0; ? shows the keys until the next key", async () => {
    const m = new SelectModel(await loadSelection(wt(repo.main), OPENSPEC_ENV));
    expect(m.key("?")).toBeNull();
    const f = m.frame(Date.now());
    expect(f.overlay?.title).toBe("Keys");
    expect(frameText(f)).toContain("Enter");
    expect(m.key("j")).toBeNull(); // closes the help, moves nothing
    expect(m.frame(Date.now()).overlay).toBeNull();
    expect(m.frame(Date.now()).list.rows[0]!.selected).toBe(true);
    expect(m.key("q")).toEqual({ kind: "quit", code: 0 });
    expect(m.key("ctrl-c")).toEqual({ kind: "quit", code: 0 });
  });

  test("a worktree with no work says what to do", async () => {
    const empty = makeRepo();
    const m = new SelectModel(await loadSelection(wt(empty), OPENSPEC_ENV));
    m.resize(100, 30);
    const f = m.frame(Date.now());
    expect(f.list.rows).toEqual([]);
    const text = frameText(f).replace(/\n/g, " ").replace(/ +/g, " ");
    expect(text).toContain(EMPTY_SHORT);
    expect(text).toContain(EMPTY_HINT.slice(0, 60));
    expect(m.key("enter")).toBeNull();
  });

  test("a refresh keeps the selection on the same entry", async () => {
    const m = new SelectModel(await loadSelection(wt(repo.main), OPENSPEC_ENV));
    m.key("j");
    m.key("j");
    const data = await loadSelection(wt(repo.main), OPENSPEC_ENV);
    m.update({ ...data, work: data.work.slice(1) }); // the change was finished meanwhile
    expect(m.key("enter")).toEqual({ kind: "attach", worktree: repo.other });
  });

  test("control characters in a task title reach the frame inert", async () => {
    const dir = makeRepo({ "tasks.md": "## 1. Evil \x1b]0;owned\x07 title\n- [ ] 1.1 clear \x1b[2J now\n" });
    const m = new SelectModel(await loadSelection(wt(dir), OPENSPEC_ENV));
    m.resize(120, 30);
    const text = frameText(m.frame(Date.now()));
    expect(text).not.toContain("\x1b");
    expect(text).not.toContain("\x07");
    expect(text).toContain("Evil ^[]0;owned^G title");
  });

  test("under 60×15 the layout is compact and the details still wrap to the width", async () => {
    const m = new SelectModel(await loadSelection(wt(repo.main), OPENSPEC_ENV));
    m.resize(40, 12);
    const f = m.frame(Date.now());
    expect(f.layout).toBe("compact");
    for (const l of f.body.lines) expect(Bun.stringWidth(l.map((s) => s.text).join(""))).toBeLessThanOrEqual(39);
  });
});

test("a worktree whose tasks.md cannot be parsed into stories shows it with no stories", async () => {
  const dir = makeRepo({ "tasks.md": "# Notes only\n" });
  const data = await loadSelection(wt(dir), OPENSPEC_ENV);
  const m = new SelectModel(data);
  m.resize(120, 30);
  expect(frameText(m.frame(Date.now()))).toContain("No stories");
});

test("inform shows text over the selection until the next key, which does nothing else", async () => {
  const dir = makeRepo({ "tasks.md": "## 1. A\n- [ ] 1.1 a\n" });
  const m = new SelectModel(await loadSelection({ path: dir, name: basename(dir) }, OPENSPEC_ENV));
  m.inform("Started", "Started a loop in repo (tmux).\n  Task: x");
  expect(m.frame(Date.now()).overlay).toEqual({
    title: "Started",
    lines: [[{ text: "Started a loop in repo (tmux).", tone: "normal" }], [{ text: "  Task: x", tone: "normal" }]],
  });
  expect(m.key("enter")).toBeNull();
  expect(m.frame(Date.now()).overlay).toBeNull();
  expect(m.key("enter")).toEqual({ kind: "preview", id: "tasks.md" });
});
