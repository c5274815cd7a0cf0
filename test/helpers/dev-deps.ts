/** The dev dependencies the tests run as real programs (and the typechecker), and which are missing. */
import { existsSync } from "node:fs";
import { join } from "node:path";

export const DEV_TOOLS = ["openspec", "claude", "codex", "gemini", "tsc"] as const;

export function missingDevTools(binDir: string): string[] {
  return DEV_TOOLS.filter((t) => !existsSync(join(binDir, t)));
}

/** One line that says what is missing and what to do. */
export function missingMessage(missing: string[], binDir: string): string {
  const list = missing.map((t) => join(binDir, t)).join(", ");
  return `The tests need the dev dependencies, and ${list} ${missing.length === 1 ? "is" : "are"} missing: run \`bun install\`.`;
}
