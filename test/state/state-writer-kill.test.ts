// The runner's state writes (state/store.ts through proc/safe-fs.ts writeFileSafe: a temp file, fsync, rename).
// A kill -9 at any moment of them must leave the state file whole — the last state written or the one it was
// writing, never a torn one, never a temp file a reader takes for it — and a link planted there is refused.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LinkRefused, writeFileSafe } from "../../src/proc/safe-fs.ts";
import { tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const WRITER = `
import { writeFileSafe } from ${JSON.stringify(join(import.meta.dir, "../../src/proc/safe-fs.ts"))};
const [root, path] = process.argv.slice(2);
// Big enough that a write takes several pieces of work; each a different text, so a torn one shows.
for (let n = 1; ; n++) {
  writeFileSafe(root, path, JSON.stringify({ n, pad: String(n % 10).repeat(400_000) }) + "\\n");
  console.log(n);
}
`;

test("kill -9 while the runner writes its state: the file is always a whole state, written before the kill", async () => {
  const root = tempDir("state-kill-");
  const script = join(root, "writer.ts");
  writeFileSync(script, WRITER);
  const path = join(root, ".claude", "loop-state.json");
  for (const after of [1, 3, 7, 12]) {
    const child = Bun.spawn(["bun", script, root, path], { stdout: "pipe", stderr: "inherit" });
    let printed = "";
    const reader = (async () => {
      for await (const chunk of child.stdout) printed += new TextDecoder().decode(chunk);
    })();
    // Killed mid-stream, wherever its writes are then (most of its time is in them).
    await waitFor(`the writer's write ${after}`, () => printed.split("\n").filter(Boolean).length >= after, 60_000, { whileRunning: child });
    child.kill("SIGKILL");
    await child.exited;
    await reader;
    const done = printed.split("\n").filter(Boolean).map(Number);
    const state = JSON.parse(readFileSync(path, "utf8")) as { n: number; pad: string };
    // The last write it finished, or the one it was in when killed (renamed, not yet reported).
    expect(state.n).toBeGreaterThanOrEqual(done.at(-1)!);
    expect(state.n).toBeLessThanOrEqual(done.at(-1)! + 1);
    expect(state.pad).toBe(String(state.n % 10).repeat(400_000));
  }
  // A killed writer's temp files are named as removeDeadTemps finds them; the state is never one of them.
  for (const name of readdirSync(join(root, ".claude"))) expect(name === "loop-state.json" || /\.\d+\.[0-9a-f]{12}\.tmp$/.test(name)).toBe(true);
}, 120_000);

test("the state writer never writes through a link planted at the state", () => {
  const root = tempDir("state-link-");
  const outside = join(tempDir("outside-"), ".bashrc");
  writeFileSync(outside, "mine\n");
  const path = join(root, "loop-state.json");
  symlinkSync(outside, path);
  expect(() => writeFileSafe(root, path, "{}\n")).toThrow(LinkRefused);
  expect(readFileSync(outside, "utf8")).toBe("mine\n");
  expect(readdirSync(root)).toEqual(["loop-state.json"]);
});
