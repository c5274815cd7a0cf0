// Files tab → Enter shows the diff the selected attempt made: from its checkpoint to its end, whatever
// happened after (a later story rewrote the same file, the attempt was reverted). A reverted attempt's
// diff is the one recorded in the iteration's log folder before the revert; none is `git diff HEAD`.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const STEPS = [
  { messages: ["first try"], write: { "notes.txt": "first try, to be reverted\n" }, promise: "FAILED: the wrong approach" },
  COMPLETE({ messages: ["second try"], write: { "notes.txt": "story one notes\n" } }),
  COMPLETE({ messages: ["story two"], write: { "notes.txt": "story two rewrote it\n" } }),
];

describeWithTmux("the Files tab's diffs", () => {
  test("Enter shows the selected attempt's own diff: the reverted first try, the kept second, and not what a later story did", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES, "notes.txt": "before the loop\n" });
    const { env } = agentEnv(STEPS);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep --max 9 --max-retries 3`));
    await shows(tmux, pane, /Loop done/);
    // The reverted attempt's diff was written before its revert, and its record names it.
    const first = readState(repo).iterations[0]!;
    expect(first.outcome).toBe("failed");
    expect(first.diff_file).toMatch(/iter-001\.diff$/);
    expect(existsSync(first.diff_file!)).toBe(true);
    expect(readFileSync(first.diff_file!, "utf8")).toContain("+first try, to be reverted");

    tmux.keys(pane, "Up");
    await shows(tmux, pane, "second try");
    tmux.keys(pane, "3");
    await shows(tmux, pane, "Files · attempt 2 (2/2)");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, "+story one notes");
    let s = tmux.capture(pane);
    expect(s).toContain("-before the loop");
    expect(s).not.toContain("story two rewrote it");
    expect(s).not.toContain("first try, to be reverted");
    tmux.keys(pane, "Escape");
    await shows(tmux, pane, (x) => !x.includes("+story one notes"));

    tmux.keys(pane, "[");
    await shows(tmux, pane, "Files · attempt 1 (1/2)");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, "+first try, to be reverted");
    s = tmux.capture(pane);
    expect(s).toContain("-before the loop");
    expect(s).not.toContain("story one notes");
    tmux.keys(pane, "Escape");
    await shows(tmux, pane, (x) => !x.includes("+first try, to be reverted"));

    tmux.keys(pane, "Down");
    await shows(tmux, pane, "Files · attempt 1 (1/1)");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, "+story two rewrote it");
    expect(tmux.capture(pane)).toContain("-story one notes");
    tmux.keys(pane, "Escape");
    await shows(tmux, pane, (x) => !x.includes("+story two rewrote it"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
