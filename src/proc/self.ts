/** How to run wt-loop itself again (the new terminal's `run`, the demo agent). */
import { fileURLToPath } from "node:url";

/** True inside the `bun build --compile` binary, whose modules live in a virtual /$bunfs/ tree. */
export const isCompiled = () => Bun.main.startsWith("/$bunfs/") || import.meta.url.includes("$bunfs");

export function selfArgv(): string[] {
  // From source (and under `bun test`, where Bun.main is the test file) run the CLI entry with bun.
  return isCompiled() ? [process.execPath] : [process.execPath, fileURLToPath(new URL("../cli.ts", import.meta.url))];
}
