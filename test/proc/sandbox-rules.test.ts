// The sandbox's rules that need no sandbox to check: which hosts a loop may reach, how they are
// forwarded, which layer may turn the sandbox on or off, and what a project file may not set.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adapterFor } from "../../src/agents/registry.ts";
import { layerOptions } from "../../src/setup/config.ts";
import { readConfigFile } from "../../src/setup/config-file.ts";
import { allowedHosts, sandboxRules } from "../../src/run/sandbox.ts";
import { worktreePlace } from "../../src/run/sandbox-git.ts";
import { allowedEnv, BASE_ENV, parseEnvNames, type Mount } from "../../src/proc/sandbox.ts";
import { hostsFile, parseEndpoint, planForwards } from "../../src/proc/sandbox-net.ts";
import { sandboxProblem } from "../../src/proc/sandbox-tools.ts";
import { UserError } from "../../src/errors.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

describe("allowed hosts", () => {
  test("host[:port]: names and loopback addresses, 443 by default; anything else is named as wrong", () => {
    expect(parseEndpoint("registry.npmjs.org")).toEqual({ host: "registry.npmjs.org", port: 443 });
    expect(parseEndpoint("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    for (const bad of ["10.0.0.1:80", "host:0", "host:70000", "http://x", "a b", ""]) expect(() => parseEndpoint(bad)).toThrow(UserError);
    expect(() => parseEndpoint("10.0.0.1")).toThrow("--sandbox-allow: '10.0.0.1' is not a host[:port]");
  });

  test("the agent's API host comes from its base-URL variable, or the vendor's; a command agent has none", () => {
    const none = { sandbox_allow: null };
    expect(allowedHosts(none, adapterFor("claude"), { ANTHROPIC_BASE_URL: "http://127.0.0.1:9999" })).toEqual([{ host: "127.0.0.1", port: 9999 }]);
    expect(allowedHosts(none, adapterFor("claude"), {})).toEqual([{ host: "api.anthropic.com", port: 443 }]);
    expect(allowedHosts(none, adapterFor("gemini"), {})).toEqual([{ host: "generativelanguage.googleapis.com", port: 443 }]);
    expect(allowedHosts(none, adapterFor("command"), {})).toEqual([]);
    expect(allowedHosts({ sandbox_allow: "a.example:8443, 127.0.0.1:5" }, adapterFor("command"), {})).toEqual([
      { host: "a.example", port: 8443 },
      { host: "127.0.0.1", port: 5 },
    ]);
  });

  test("each name gets a loopback address of its own in the private hosts file; loopback hosts listen on themselves", () => {
    const f = planForwards(
      [
        { host: "api.anthropic.com", port: 443 },
        { host: "127.0.0.1", port: 8080 },
        { host: "x.example", port: 443 },
        { host: "api.anthropic.com", port: 443 },
      ],
      "/s",
    );
    expect(f.map((x) => [x.inside, x.port, x.socket])).toEqual([
      ["127.77.0.1", 443, "/s/0.sock"],
      ["127.0.0.1", 8080, "/s/1.sock"],
      ["127.77.0.2", 443, "/s/2.sock"],
    ]);
    expect(hostsFile(f)).toContain("127.77.0.1 api.anthropic.com\n127.77.0.2 x.example\n");
    expect(hostsFile(f)).not.toContain("127.0.0.1 127.0.0.1");
  });
});

describe("which layer sets the sandbox", () => {
  const setup = (project: object | null, user: object | null) => {
    const wt = tempDir("wt-");
    const env = { XDG_CONFIG_HOME: tempDir("xdg-") };
    if (project) writeFileSync(join(wt, ".wt-loop.json"), JSON.stringify(project));
    if (user) {
      mkdirSync(join(env.XDG_CONFIG_HOME, "wt-loop"), { recursive: true });
      writeFileSync(join(env.XDG_CONFIG_HOME, "wt-loop/config.json"), JSON.stringify(user));
    }
    return { wt, env };
  };

  test("on in the user's file: a project file's false does not turn it off", () => {
    const { wt, env } = setup({ sandbox: false }, { sandbox: true });
    expect(layerOptions(wt, {}, null, env).options.sandbox).toBe(true);
  });

  test("on in the project's file turns it on", () => {
    const { wt, env } = setup({ sandbox: true }, null);
    expect(layerOptions(wt, {}, null, env).options.sandbox).toBe(true);
  });

  test("a project file may not widen the network: sandbox-network and sandbox-allow are the user's only", () => {
    const { wt } = setup({ "sandbox-network": "open", "sandbox-allow": "evil.example" }, null);
    expect(() => readConfigFile(join(wt, ".wt-loop.json"), "project")).toThrow(/"sandbox-network" can only be set in your user file/);
  });
});

describe("where the sandbox cannot be made", () => {
  test("another platform is named; missing tools are named with their packages", () => {
    expect(sandboxProblem("darwin")).toContain("--sandbox is not supported on this platform (darwin)");
    expect(sandboxProblem("linux", tempDir("empty-bin-"))).toContain("bwrap (bubblewrap), socat (socat), rg (ripgrep)");
  });
});

describe("what goes in", () => {
  const env = {
    PATH: "/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    TERM: "xterm",
    WT_LOOP_RUN: "tag",
    ANTHROPIC_API_KEY: "sk",
    ANTHROPIC_BASE_URL: "http://x",
    OPENAI_API_KEY: "sk-o",
    GITHUB_TOKEN: "ghp",
    AWS_SECRET_ACCESS_KEY: "aws",
    TMUX: "/tmp/tmux-0/default,1,0",
    SSH_AUTH_SOCK: "/tmp/ssh/a",
    DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/bus",
    MY_TOOL_HOME: "/opt",
    MY_TOOL_TOKEN: "t",
  };
  test("an allow-list: what programs need and the agent's own variables; tokens, TMUX, SSH_AUTH_SOCK and DBUS_* never unless named", async () => {
    const claudeRules = await sandboxRules(
      { worktree_path: tempDir("wt-"), sandbox_network: null, sandbox_allow: null, sandbox_deny_read: null, sandbox_env: "MY_TOOL_*" },
      [adapterFor("claude")],
      { HOME: tempDir("home-") },
    );
    const inside = allowedEnv(env, [...BASE_ENV, ...claudeRules.env]);
    expect(Object.keys(inside).sort()).toEqual([
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_BASE_URL",
      "HOME",
      "LANG",
      "LC_ALL",
      "MY_TOOL_HOME",
      "MY_TOOL_TOKEN",
      "PATH",
      "TERM",
      "WT_LOOP_RUN",
    ]);
    expect(Object.keys(allowedEnv(env, [...BASE_ENV, ...adapterFor("codex").sandbox!.env]))).toContain("OPENAI_API_KEY");
    expect(Object.keys(allowedEnv(env, [...BASE_ENV, ...(adapterFor("command").sandbox?.env ?? [])]))).not.toContain("ANTHROPIC_API_KEY");
  });

  test("--sandbox-env takes names and PREFIX_*; anything else is named as wrong; a project file may not set it", () => {
    expect(parseEnvNames("A, B_*")).toEqual(["A", "B_*"]);
    expect(() => parseEnvNames("A=1")).toThrow("--sandbox-env: 'A=1' is not a variable name");
    expect(() => parseEnvNames("SSH_AUTH_SOCK")).toThrow("--sandbox-env: SSH_AUTH_SOCK is never passed into the sandbox");
    expect(Object.keys(allowedEnv(env, ["*"]))).not.toContain("TMUX");
    const wt = tempDir("wt-");
    writeFileSync(join(wt, ".wt-loop.json"), JSON.stringify({ "sandbox-env": "GITHUB_TOKEN" }));
    expect(() => readConfigFile(join(wt, ".wt-loop.json"), "project")).toThrow(/"sandbox-env" can only be set in your user file/);
  });
});

describe("what the agent's own configuration is", () => {
  test("each agent's settings, memory and command files are read-only inside, made empty when missing", async () => {
    const home = tempDir("home-");
    const rules = await sandboxRules(
      { worktree_path: tempDir("wt-"), sandbox_network: null, sandbox_allow: null, sandbox_deny_read: null, sandbox_env: null },
      ["claude", "codex", "gemini"].map((a) => adapterFor(a as "claude")),
      { HOME: home },
    );
    for (const f of [
      ".claude.json",
      ".claude/settings.json",
      ".claude/CLAUDE.md",
      ".claude/commands",
      ".codex/config.toml",
      ".codex/AGENTS.md",
      ".gemini/settings.json",
      ".gemini/GEMINI.md",
    ]) {
      expect(rules.readOnly).toContain(join(home, f));
      expect(existsSync(join(home, f))).toBe(true);
    }
    expect(readFileSync(join(home, ".claude/settings.json"), "utf8")).toBe("{}\n");
    expect(rules.write).toEqual([join(home, ".claude"), join(home, ".codex"), join(home, ".gemini")]);
  });
});

describe("a worktree's git dirs", () => {
  test("main worktree: the git dir writable for git's own files, the rest bound read-only; a name git never writes is removed after", () => {
    const repo = makeRepo();
    const place = worktreePlace(repo);
    const ro = place.mounts.filter(([m]) => m === "ro").map(([, p]) => p.slice(repo.length + 1));
    expect(ro).toEqual(expect.arrayContaining([".git/config", ".git/hooks", ".git/info", ".git/config.worktree", ".git/wt-loop"]));
    expect(ro).not.toContain(".git/index");
    expect(ro).not.toContain(".git/refs");
    writeFileSync(join(repo, ".git/commondir"), "/evil\n");
    writeFileSync(join(repo, ".git/COMMIT_EDITMSG"), "x\n");
    expect(place.settle!()).toEqual([expect.stringContaining(`removed ${join(repo, ".git/commondir")}`)]);
    expect(existsSync(join(repo, ".git/commondir"))).toBe(false);
    expect(existsSync(join(repo, ".git/COMMIT_EDITMSG"))).toBe(true);
  });

  test("linked worktree: the common git dir read-only but for objects, refs and logs; its own folder writable; its .git file read-only", () => {
    const repo = makeRepo();
    const wt = join(repo, "..", "linked");
    git(repo, "worktree", "add", "-q", "-b", "linked", wt);
    const common = join(repo, ".git");
    const expected: Mount[] = [
      ["ro", common],
      ["rw", join(common, "objects")],
      ["rw", join(common, "refs")],
      ["rw", join(common, "logs")],
      ["rw", wt],
      ["rw", join(common, "worktrees/linked")],
      ...["commondir", "config.worktree", "gitdir"].map((f): Mount => ["ro", join(common, "worktrees/linked", f)]),
      ["ro", join(wt, ".git")],
    ];
    expect(worktreePlace(wt).mounts).toEqual(expected);
  });
});

test("a git dir removed while the command ran (a lane gone) leaves nothing to sweep", () => {
  const repo = makeRepo();
  const wt = join(repo, "..", "gone");
  git(repo, "worktree", "add", "-q", "-b", "gone", wt);
  const place = worktreePlace(wt);
  git(repo, "worktree", "remove", "--force", wt);
  expect(place.settle!()).toEqual([]);
});
