// The sandbox's rules that need no sandbox to check: which hosts a loop may reach, how they are
// forwarded, which layer may turn the sandbox on or off, and what a project file may not set.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adapterFor } from "../../src/agents/registry.ts";
import { layerOptions } from "../../src/setup/config.ts";
import { readConfigFile } from "../../src/setup/config-file.ts";
import { allowedHosts } from "../../src/run/sandbox.ts";
import { hostsFile, parseEndpoint, planForwards } from "../../src/proc/sandbox-net.ts";
import { sandboxProblem } from "../../src/proc/sandbox-tools.ts";
import { UserError } from "../../src/errors.ts";
import { tempDir } from "../helpers/repo.ts";

describe("allowed hosts", () => {
  test("host[:port]: names and loopback addresses, 443 by default; anything else is named as wrong", () => {
    expect(parseEndpoint("registry.npmjs.org")).toEqual({ host: "registry.npmjs.org", port: 443 });
    expect(parseEndpoint("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    for (const bad of ["10.0.0.1:80", "host:0", "host:70000", "http://x", "a b", ""])
      expect(() => parseEndpoint(bad)).toThrow(UserError);
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
    const f = planForwards([{ host: "api.anthropic.com", port: 443 }, { host: "127.0.0.1", port: 8080 }, { host: "x.example", port: 443 }, { host: "api.anthropic.com", port: 443 }], "/s");
    expect(f.map((x) => [x.inside, x.port, x.socket])).toEqual([["127.77.0.1", 443, "/s/0.sock"], ["127.0.0.1", 8080, "/s/1.sock"], ["127.77.0.2", 443, "/s/2.sock"]]);
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
