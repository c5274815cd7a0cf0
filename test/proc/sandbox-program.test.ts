// The program a sandboxed command starts may live under /tmp (a clone made there, an agent installed in a
// project's node_modules there): inside, /tmp is the loop's own empty folder, so that program must be put
// back, read-only — its folder, or the whole node_modules it was installed in (its dependencies live there).
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { programFolders } from "../../src/proc/sandbox-program.ts";
import { tempDir } from "../helpers/repo.ts";

// Under /tmp itself, whatever TMPDIR says: the rule is about /tmp.
const tmp = () => tempDir("wt-loop-program-", "/tmp");
const script = (path: string) => {
  writeFileSync(path, "#!/bin/sh\ntrue\n");
  chmodSync(path, 0o755);
};

describe("programFolders: what a sandboxed command needs from under /tmp", () => {
  test("a script given by path: its folder", () => {
    const d = tmp();
    script(join(d, "agent.sh"));
    expect(programFolders(["sh", "-c", `${d}/agent.sh --flag`], "/", {})).toEqual([d]);
    expect(programFolders([join(d, "agent.sh")], "/", {})).toEqual([d]);
  });

  test("a relative path is taken from the command's folder; a name from its PATH", () => {
    const d = tmp();
    mkdirSync(join(d, "bin"));
    script(join(d, "bin/agent"));
    expect(programFolders(["sh", "-c", "bin/agent x"], d, {})).toEqual([join(d, "bin")]);
    expect(programFolders(["sh", "-c", "agent"], "/", { PATH: `/usr/bin:${join(d, "bin")}` })).toEqual([join(d, "bin")]);
  });

  test("a program installed in node_modules (a .bin link to its package): the whole node_modules", () => {
    const d = tmp();
    mkdirSync(join(d, "node_modules/.bin"), { recursive: true });
    mkdirSync(join(d, "node_modules/@scope/cli/dist"), { recursive: true });
    script(join(d, "node_modules/@scope/cli/dist/cli.js"));
    symlinkSync("../@scope/cli/dist/cli.js", join(d, "node_modules/.bin/cli"));
    expect(programFolders(["cli", "-p", "x"], "/", { PATH: join(d, "node_modules/.bin") })).toEqual([join(d, "node_modules")]);
  });

  test("nothing for programs outside /tmp, names not found, or shell words that are not programs", () => {
    expect(programFolders(["sh", "-c", "git status"], "/", { PATH: "/usr/bin" })).toEqual([]);
    expect(programFolders(["no-such-program-here"], "/", { PATH: "/usr/bin" })).toEqual([]);
    expect(programFolders(["sh", "-c", "FOO=1 ./x; cd /tmp"], "/", {})).toEqual([]);
    expect(programFolders([], "/", {})).toEqual([]);
  });

  test("the hidden folders count as /tmp does", () => {
    const d = tmp();
    script(join(d, "agent.sh"));
    expect(programFolders([join(d, "agent.sh")], "/", {}, ["/var/tmp"])).toEqual([d]);
    expect(programFolders(["/usr/bin/env"], "/", {}, ["/usr"])).toEqual(["/usr/bin"]);
  });
});
