// A cloned repository's `.wt-loop.json` can set `agent-cmd`, `verify` and `notify` to any command.
// wt-loop runs them only once the user trusted that file's content (`wt-loop trust`, or "y" at the
// question on a terminal): before, `start` exits 1 naming the file and each command, and nothing
// runs or is written. An edited file, or a revoked one, is refused again. A committed state file
// that "remembers" a command is not trusted either.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

const FLAGS = ["Write the thing", "--done", "manual", "--on-complete", "keep", "--terminal", "inline"];

/** A repository whose `.wt-loop.json` runs three commands, each leaving a marker file outside it. */
function clonedRepo() {
  const repo = makeRepo();
  const marks = tempDir("marks-");
  const mark = (name: string) => join(marks, name);
  const config: Record<string, string> = {
    agent: "command",
    "agent-cmd": `touch ${mark("agent")}; echo '<promise>COMPLETE</promise>'`,
    verify: `touch ${mark("verify")}`,
    notify: `touch ${mark("notify")}`,
  };
  writeFileSync(join(repo, ".wt-loop.json"), JSON.stringify(config, null, 2));
  const xdg = tempDir("xdg-");
  const env = { XDG_CONFIG_HOME: xdg };
  const ran = () => ["agent", "verify", "notify"].filter((m) => existsSync(mark(m)));
  return { repo, env, ran, config, xdg };
}

const nothingWritten = (repo: string) => {
  expect(existsSync(join(repo, ".claude"))).toBe(false);
  expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
  expect(git(repo, "branch", "--show-current")).toBe("main");
};

function expectRefused(r: { code: number; stderr: string }, repo: string, config: Record<string, string>) {
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(join(repo, ".wt-loop.json"));
  for (const key of ["agent-cmd", "verify", "notify"]) expect(r.stderr).toContain(`${key}: ${config[key]}`);
  expect(r.stderr).toContain("wt-loop trust");
  expect(r.stderr).not.toContain("    at ");
}

describe("a cloned repository's commands run only once trusted", () => {
  test("refused without a terminal, nothing run or written; trusted, it runs; edited or revoked, refused again", async () => {
    const { repo, env, ran, config, xdg } = clonedRepo();
    const refused = await wtLoop(["start", ...FLAGS], { cwd: repo, env });
    expectRefused(refused, repo, config);
    expect(ran()).toEqual([]);
    nothingWritten(repo);
    expect(existsSync(join(xdg, "wt-loop/trusted.json"))).toBe(false);

    // A direct `run` reads the same file: refused the same way.
    expectRefused(await wtLoop(["run", ...FLAGS], { cwd: repo, env }), repo, config);
    nothingWritten(repo);

    // The dry run and `wt-loop config` say so, and which commands would be refused.
    const dry = await wtLoop(["start", ...FLAGS, "--dry-run"], { cwd: repo, env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(".wt-loop.json is not trusted");
    expect(dry.stdout).toContain(`verify: ${config.verify}`);
    const shown = await wtLoop(["config"], { cwd: repo, env });
    expect(shown.stdout).toContain(".wt-loop.json is not trusted");
    expect(JSON.parse((await wtLoop(["config", "--json"], { cwd: repo, env })).stdout).files.project).toMatchObject({ trusted: false });

    const trusted = await wtLoop(["trust"], { cwd: repo, env });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(`Trusted ${join(repo, ".wt-loop.json")}`);
    const store = join(xdg, "wt-loop/trusted.json");
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect((await wtLoop(["config"], { cwd: repo, env })).stdout).toContain(".wt-loop.json is trusted");

    const r = await wtLoop(["start", ...FLAGS], { cwd: repo, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(ran()).toEqual(["agent", "verify", "notify"]);
    expect(readState(repo).status).toBe("done");

    const list = await wtLoop(["trust", "--show"], { cwd: repo, env });
    expect(list.stdout).toContain(join(repo, ".wt-loop.json"));

    // One more character: a different file, which needs trust again.
    writeFileSync(join(repo, ".wt-loop.json"), JSON.stringify({ ...config, verify: `${config.verify} ` }));
    const edited = await wtLoop(["start", ...FLAGS], { cwd: repo, env });
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain("changed since you trusted it");
    expect(readState(repo).status).toBe("done"); // the last run's record, untouched

    expect((await wtLoop(["trust"], { cwd: repo, env })).code).toBe(0);
    const revoked = await wtLoop(["trust", "--revoke"], { cwd: repo, env });
    expect(revoked.code).toBe(0);
    expect((await wtLoop(["trust", "--show"], { cwd: repo, env })).stdout).not.toContain(join(repo, ".wt-loop.json"));
    expect((await wtLoop(["start", ...FLAGS], { cwd: repo, env })).code).toBe(1);
  }, 90_000);

  test("keys that run no command apply untrusted; flags and the user's file are trusted", async () => {
    const repo = makeRepo();
    const marks = tempDir("marks-");
    writeFileSync(join(repo, ".wt-loop.json"), JSON.stringify({ "max-retries": 2, agent: "command" }));
    const xdg = tempDir("xdg-");
    mkdirSync(join(xdg, "wt-loop"));
    writeFileSync(join(xdg, "wt-loop/config.json"), JSON.stringify({ notify: `touch ${join(marks, "notify")}` }));
    const r = await wtLoop(["start", ...FLAGS, "--agent-cmd", "echo '<promise>COMPLETE</promise>'"], { cwd: repo, env: { XDG_CONFIG_HOME: xdg } });
    expect(r.code).toBe(0);
    expect(readState(repo)).toMatchObject({ status: "done", max_retries: 2 });
    expect(existsSync(join(marks, "notify"))).toBe(true);
  }, 60_000);

  test("a committed state that remembers a command is not trusted: a restart is refused, nothing run", async () => {
    const { repo, env, ran, config } = clonedRepo();
    expect((await wtLoop(["trust"], { cwd: repo, env })).code).toBe(0);
    expect((await wtLoop(["start", ...FLAGS, "--max-retries", "1"], { cwd: repo, env })).code).toBe(0);
    // The repository's author commits a stopped state whose remembered verify is their own command.
    const state = readState(repo);
    const planted = join(tempDir("marks-"), "planted");
    writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify({ ...state, status: "stopped", verify: `touch ${planted}` }));
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".claude/loop-state.json");
    expect(r.stderr).toContain(`verify: touch ${planted}`);
    expect(existsSync(planted)).toBe(false);
    expect(readState(repo).status).toBe("stopped");
    expect(ran()).toEqual(["agent", "verify", "notify"]); // from the trusted run only
    void config;
  }, 90_000);

  test("a committed `starting` state is not run: `wt-loop run` refuses its commands", async () => {
    const { repo, env, ran } = clonedRepo();
    expect((await wtLoop(["trust"], { cwd: repo, env })).code).toBe(0);
    expect((await wtLoop(["start", ...FLAGS], { cwd: repo, env })).code).toBe(0);
    const planted = join(tempDir("marks-"), "planted");
    const state = { ...readState(repo), status: "starting", verify: `touch ${planted}`, updated_at: new Date(0).toISOString() };
    writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(state));
    const r = await wtLoop(["run"], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`verify: touch ${planted}`);
    expect(existsSync(planted)).toBe(false);
    expect(ran()).toEqual(["agent", "verify", "notify"]); // from the trusted run only
  }, 90_000);

  test("the list of trusted files is never written through a link", async () => {
    const { repo, env, xdg } = clonedRepo();
    mkdirSync(join(xdg, "wt-loop"));
    const elsewhere = join(tempDir("elsewhere-"), "file");
    writeFileSync(elsewhere, '{"version": 1, "files": []}\n');
    symlinkSync(elsewhere, join(xdg, "wt-loop/trusted.json"));
    const r = await wtLoop(["trust"], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is a symbolic link");
    expect(readFileSync(elsewhere, "utf8")).toBe('{"version": 1, "files": []}\n');
  });

  test("a restart of this user's own run keeps its remembered commands", async () => {
    const { repo, env } = clonedRepo();
    expect((await wtLoop(["trust"], { cwd: repo, env })).code).toBe(0);
    const stuck = await wtLoop(
      ["start", "Write", "--done", "manual", "--on-complete", "keep", "--terminal", "inline", "--verify", "exit 1", "--max-retries", "1"],
      { cwd: repo, env },
    );
    expect(stuck.code).toBe(2);
    // The file changes afterwards; the continued loop takes its commands from the state it wrote.
    writeFileSync(join(repo, ".wt-loop.json"), JSON.stringify({ "max-retries": 1 }));
    const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
    expect(again.stdout).toContain("Continuing the previous loop (stuck)");
    expect(again.code).toBe(2);
    expect(readState(repo).verify).toBe("exit 1");
  }, 90_000);

  test("a .wt-loop.json that is a link to a sibling checkout's trusted file is not trusted, and cannot be", async () => {
    // The sibling's file is trusted (its commands run there); a clone commits a relative link to it.
    const { repo: sibling, env, ran, config } = clonedRepo();
    expect((await wtLoop(["trust"], { cwd: sibling, env })).code).toBe(0);
    const clone = join(tempDir("clone-"), "clone");
    mkdirSync(clone);
    git(clone, "init", "-q", "-b", "main");
    symlinkSync(join("..", "..", sibling.split("/").slice(-2).join("/"), ".wt-loop.json"), join(clone, ".wt-loop.json"));
    git(clone, "-c", "user.name=a", "-c", "user.email=a@b", "add", "-A");
    git(clone, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "clone");
    expect(readFileSync(join(clone, ".wt-loop.json"), "utf8")).toContain("agent-cmd"); // the link does lead there
    const r = await wtLoop(["start", ...FLAGS], { cwd: clone, env });
    expectRefused(r, join(clone), config);
    expect(r.stderr).toContain("is a symbolic link");
    expect(ran()).toEqual([]);
    nothingWritten(clone);
    // `wt-loop trust` refuses it too, saying how to trust its content instead.
    const t = await wtLoop(["trust"], { cwd: clone, env });
    expect(t.code).toBe(1);
    expect(t.stderr).toContain("never trusts a project file through a link");
    expect(t.stderr).toContain("cp --remove-destination");
    expect((await wtLoop(["start", ...FLAGS], { cwd: clone, env })).code).toBe(1);
    expect(ran()).toEqual([]);
  }, 90_000);
});

let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

describeWithTmux("on a terminal, start asks once", () => {
  const onTerminal = async (answer: string) => {
    const { repo, env, ran, config, xdg } = clonedRepo();
    tmux = new Tmux();
    const cmd = `${process.execPath} ${CLI} start --plain ${FLAGS.map((f) => `'${f}'`).join(" ")}`;
    const pane = tmux.start(repo, { ...env, PATH: testPath(), TERM: "xterm-256color" }, cmd);
    await tmux.waitFor("the question", () => /Trust .*\.wt-loop\.json and run these commands\? \(y\/N\)/.test(tmux!.capture(pane)));
    const screen = tmux.capture(pane);
    for (const key of ["agent-cmd", "verify", "notify"]) expect(screen).toContain(`${key}: ${config[key]}`);
    tmux.keys(pane, answer, "Enter");
    return { code: await tmux.exitCode(pane, 60_000), repo, ran, xdg };
  };

  test("y trusts the file and runs the loop", async () => {
    const { code, repo, ran, xdg } = await onTerminal("y");
    expect(code).toBe(0);
    expect(ran()).toEqual(["agent", "verify", "notify"]);
    expect(readState(repo).status).toBe("done");
    expect(readFileSync(join(xdg, "wt-loop/trusted.json"), "utf8")).toContain(join(repo, ".wt-loop.json"));
  }, 90_000);

  test("n refuses: exit 1, nothing run or written", async () => {
    const { code, repo, ran, xdg } = await onTerminal("n");
    expect(code).toBe(1);
    expect(ran()).toEqual([]);
    nothingWritten(repo);
    expect(existsSync(join(xdg, "wt-loop/trusted.json"))).toBe(false);
  }, 90_000);
});
