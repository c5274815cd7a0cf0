/**
 * A process that is, by every outward sign, a wt-loop runner working in `worktree` — this CLI's
 * `run` (or `start`), started in that folder — but that only sleeps: a Bun preload (from the
 * bunfig.toml of the folder it starts in) holds it before the CLI runs. For the checks that must
 * tell our own runner from any other process without running a whole loop.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI } from "./cli.ts";
import { waitFor } from "./wait.ts";

export async function fakeRunner(worktree: string, command = "run") {
  const dir = join(worktree, ".fake-runner");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./hang.ts"]\n');
  writeFileSync(join(dir, "hang.ts"), "Bun.sleepSync(600_000);\n");
  const proc = Bun.spawn([process.execPath, CLI, command], { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const cmdline = () => {
    try {
      return readFileSync(`/proc/${proc.pid}/cmdline`, "utf8");
    } catch {
      return "";
    }
  };
  await waitFor("the fake runner to show its command line", () => cmdline().includes(CLI), 10_000, { every: 10 });
  return proc;
}
