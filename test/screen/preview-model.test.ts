import { beforeAll, describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { loadPreview, loadSelection } from "../../src/screen/select-data.ts";
import { PreviewModel } from "../../src/screen/preview-model.ts";
import { frameText, selectionRepo, OPENSPEC_ENV } from "../helpers/select-fixture.ts";
import { testPath, wtLoop } from "../helpers/cli.ts";
import { makeRepo, write } from "../helpers/repo.ts";

const wt = (path: string) => ({ path, name: basename(path) });
let repo: { main: string; other: string };

beforeAll(() => {
  repo = selectionRepo();
});

async function preview(dir: string, id: string) {
  const data = await loadSelection(wt(dir), OPENSPEC_ENV);
  const item = data.work.find((w) => w.name === id)!;
  const m = new PreviewModel(await loadPreview(wt(dir), item, OPENSPEC_ENV));
  m.resize(120, 40);
  return m;
}

/** What the whole body of the active tab says (scrolled through to the end). */
function wholeTab(m: PreviewModel): string {
  m.key("home");
  const f = m.frame(Date.now());
  const out = [...f.body.lines];
  for (let top = f.body.lines.length; top < f.body.total; top = out.length) {
    m.key("pagedown");
    const next = m.frame(Date.now()).body;
    out.push(...next.lines.slice(top - next.top));
  }
  return out.map((l) => l.map((s) => s.text).join("")).join("\n");
}

describe("the preview of a change", () => {
  test("its header counts tasks, stories and scenarios; the Tasks tab shows each story's boxes", async () => {
    const m = await preview(repo.main, "add-greeting");
    const f = m.frame(Date.now());
    expect(f.layout).toBe("full");
    expect(f.tabs).toEqual([
      { title: "Tasks", active: true },
      { title: "Scenarios", active: false },
      { title: "Prompt", active: false },
    ]);
    const text = frameText(f);
    expect(text).toContain("Change add-greeting");
    expect(text).toContain("tasks 1/3 · stories 0/2 · 2 scenarios");
    expect(text).toContain("· 1. Greeting  1/2\n  [x] 1.1 Write greet.txt\n  [ ] 1.2 Say hello in it\n\n· 2. Farewell  0/1\n  [ ] 2.1 Write bye.txt");
  });

  test("Tab shows the requirements and their GIVEN/WHEN/THEN; Shift-Tab goes back", async () => {
    const m = await preview(repo.main, "add-greeting");
    m.key("tab");
    expect(m.frame(Date.now()).tabs[1]!.active).toBe(true);
    const text = wholeTab(m).replace(/ +\n/g, "\n");
    expect(text).toContain(
      "ADDED Requirement: Greeting  (greeting)\n  The tool SHALL greet.\n  Scenario: Greets by name\n    GIVEN a name\n    WHEN  it runs\n    THEN  it prints hello",
    );
    expect(text).toContain("Requirement: Farewell");
    m.key("shift-tab");
    expect(m.frame(Date.now()).tabs[0]!.active).toBe(true);
    m.key("shift-tab");
    expect(m.frame(Date.now()).tabs[2]!.active).toBe(true);
  });

  test("the Prompt tab holds the prompt the loop would give the first unfinished story, as the dry run prints it", async () => {
    const m = await preview(repo.main, "add-greeting");
    m.resize(400, 40); // no wrapping: compare line for line
    m.key("tab");
    m.key("tab");
    const shown = wholeTab(m);
    const r = await wtLoop(["run", "--dry-run", "--change", "add-greeting"], { cwd: repo.main, env: { PATH: testPath({ openspec: true }) } });
    expect(r.code).toBe(0);
    const rule = "─".repeat(60);
    const printed = r.stdout.split(`First prompt:\n${rule}\n`)[1]!.split(`\n${rule}`)[0]!;
    expect(printed).toContain("## Your story: 1. Greeting (story 1 of 2)");
    expect(shown).toBe(printed);
  });

  test("R, S, Esc and q ask the world for a run, a start, the way back and the end", async () => {
    const m = await preview(repo.main, "add-greeting");
    expect(m.key("R")).toEqual({ kind: "run", id: "add-greeting" });
    expect(m.key("S")).toEqual({ kind: "start", id: "add-greeting" });
    expect(m.key("escape")).toEqual({ kind: "back" });
    expect(m.key("q")).toEqual({ kind: "quit", code: 0 });
    expect(m.key("?")).toBeNull();
    expect(
      m
        .frame(Date.now())
        .overlay?.lines.map((l) => l.map((s) => s.text).join(""))
        .join("\n"),
    ).toContain("run the loop here");
  });

  test("PgDn, End and Home scroll the active tab within its length", async () => {
    const m = await preview(repo.main, "add-greeting");
    m.resize(80, 15);
    m.key("3");
    const first = m.frame(Date.now()).body;
    expect(first.top).toBe(0);
    expect(first.total).toBeGreaterThan(first.lines.length);
    m.key("pagedown");
    expect(m.frame(Date.now()).body.top).toBe(first.lines.length - 1);
    m.key("end");
    const end = m.frame(Date.now()).body;
    expect(end.top + end.lines.length).toBe(end.total);
    expect(end.following).toBe(true);
    m.key("j"); // past the end stays at the end
    expect(m.frame(Date.now()).body.top).toBe(end.top);
    m.key("home");
    expect(m.frame(Date.now()).body.top).toBe(0);
  });
});

describe("the preview of a plain tasks.md", () => {
  test("has no scenarios, and its prompt says the run would take the change first", async () => {
    const m = await preview(repo.main, "docs/tasks.md");
    const text = frameText(m.frame(Date.now()));
    expect(text).toContain("Tasks file docs/tasks.md");
    expect(text).not.toContain("scenarios");
    m.key("tab");
    expect(wholeTab(m)).toContain("A plain tasks.md has no scenarios");
    m.key("tab");
    expect(wholeTab(m)).toContain("A run here takes openspec/changes/add-greeting/tasks.md first");
  });

  test("alone in its worktree, its prompt is its first unfinished story's", async () => {
    const dir = makeRepo({ "tasks.md": "## 1. Done\n- [x] 1.1 a\n\n## 2. Next\n- [ ] 2.1 b\n" });
    const m = await preview(dir, "tasks.md");
    m.key("3");
    const text = wholeTab(m);
    expect(text).toContain("## Your story: 2. Next (story 2 of 2)");
    expect(text).toContain("Complete the tasks in tasks.md.");
  });

  test("a story with prerequisites says `after 1, 2` beside it; prerequisites that can never be met are said first", async () => {
    const dir = makeRepo({ "tasks.md": "## 1. Schema\n- [ ] 1.1 a\n\n## 2. Parser\n- [x] 2.1 b\n\n## 3. CLI (after 1, 2)\n- [ ] 3.1 c\n" });
    const text = frameText((await preview(dir, "tasks.md")).frame(Date.now()));
    expect(text).toContain("· 1. Schema  0/1\n");
    expect(text).toContain("· 3. CLI  0/1  after 1, 2\n  [ ] 3.1 c");
    const broken = makeRepo({ "tasks.md": "## 1. Schema (after 2)\n- [ ] 1.1 a\n\n## 2. CLI (after 1)\n- [ ] 2.1 c\n" });
    const said = frameText((await preview(broken, "tasks.md")).frame(Date.now()));
    expect(said).toContain("1 after 2, 2 after 1: these wait for each other");
    expect(said.indexOf("these wait for each other")).toBeLessThan(said.indexOf("· 1. Schema"));
  });

  test("a project config file the loop would refuse gives no prompt, and says where to look", async () => {
    const dir = makeRepo({ "tasks.md": "## 1. A\n- [ ] 1.1 a\n" });
    write(dir, { ".wt-loop.json": JSON.stringify({ max: "many" }) });
    const m = await preview(dir, "tasks.md");
    m.key("3");
    expect(wholeTab(m)).toContain("No prompt");
  });
});
