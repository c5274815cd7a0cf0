// Text from an agent, a file or a command is shown, never acted on by the terminal; only wt-loop's
// own colours pass the last gate; and nothing in src/ writes to a terminal around that gate.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { forTerminal, inert, inertDeep, inertLine } from "../../src/term/inert.ts";
import { paint } from "../../src/term/color.ts";
import { renderEvent } from "../../src/term/render.ts";

describe("inert", () => {
  test("C0 (but newline and tab), DEL, C1 and a lone CR are made visible", () => {
    expect(inert("a\x1b]52;c;eA==\x07b")).toBe("a^[]52;c;eA==^Gb");
    expect(inert("\x1b[2J\x00\x7f")).toBe("^[[2J^@^?");
    expect(inert("\x9b31m \x9d0;x\x9c")).toBe("\\x9b31m \\x9d0;x\\x9c");
    expect(inert("benign\rEVIL\r\nnext\tcol\n")).toBe("benign^MEVIL\r\nnext\tcol\n");
  });

  test("clean text is returned as it is, and so is an object holding only clean text", () => {
    const big = "lorem ipsum ".repeat(100_000);
    expect(inert(big)).toBe(big);
    const o = { a: "x", b: [{ c: "y" }], n: 1, z: null };
    expect(inertDeep(o)).toBe(o);
    expect(inertDeep({ ...o, b: [{ c: "\x1b]0;t\x07" }] })).toEqual({ ...o, b: [{ c: "^[]0;t^G" }] });
  });

  test("a line (title, notification) also loses its newlines and tabs", () => {
    expect(inertLine("1. Title\x1b]0;X\x07\nmore\tx")).toBe("1. Title^[]0;X^G more x");
  });

  test("the last gate lets complete colour sequences through and shows everything else", () => {
    const red = paint(true, "31");
    expect(forTerminal(red("ok"))).toBe("\x1b[31mok\x1b[0m");
    expect(forTerminal(`${red("ok")}\x1b[2J\x1b]8;;http://x\x1b\\`)).toBe("\x1b[31mok\x1b[0m^[[2J^[]8;;http://x^[\\");
  });

  test("a rendered event shows the agent's escapes even in colour, and keeps its own colour", () => {
    const lines = renderEvent(
      { type: "StoryEvent", story_id: "1", iteration: 1, event: { type: "ToolUse", name: "Bash", summary: "\x1b[8mhidden" } } as never,
      { color: true },
    );
    expect(lines).toEqual(["\x1b[36m  ▸ Bash ^[[8mhidden\x1b[0m"]);
  });
});

describe("every terminal write of src/ goes through term/", () => {
  test("no console.log/error, process.stdout/stderr.write outside src/term/ (the demo agent speaks its protocol on a pipe)", () => {
    const src = join(import.meta.dir, "../../src");
    const allowed = new Set(["setup/demo-agent.ts"]);
    const found: string[] = [];
    for (const f of readdirSync(src, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".ts"))) {
      if (f.startsWith("term/") || allowed.has(f)) continue;
      readFileSync(join(src, f), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/\bconsole\.(log|error|warn|info|debug)\(|process\.(stdout|stderr)\.write\(|Bun\.write\(Bun\.std(out|err)/.test(line.replace(/\/\/.*$/, "")))
            found.push(`${relative(src, join(src, f))}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
