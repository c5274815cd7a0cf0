// A bug's report: what the user is asked to send must say what failed and where, with the version —
// not a line of the compiled binary's minified source, which Bun.inspect prints above the stack.
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../../..");

test("an unexpected error prints the version, the error and its stack, and no source line", () => {
  const script = `
    import { action } from "./src/commands/args/args.ts";
    function deepInside() { throw new TypeError("cannot read the thing"); }
    await action(async () => deepInside())({});
  `;
  const r = Bun.spawnSync(["bun", "-e", script], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const err = r.stderr.toString();
  const lines = err.trimEnd().split("\n");
  expect(r.exitCode).toBe(1);
  expect(lines[0]).toBe("wt-loop hit an unexpected error (a bug; please report it with this output):");
  expect(lines[1]).toMatch(/^wt-loop \d+\.\d+\.\d+ \(/);
  expect(lines[2]).toBe("TypeError: cannot read the thing");
  expect(lines[3]).toMatch(/^ +at deepInside /);
  // Bun.inspect's excerpt of the source: "3 |     function deepInside() …" and a caret line.
  expect(err).not.toMatch(/^\s*\d+ \| /m);
});
