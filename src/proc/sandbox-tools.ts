/**
 * What `--sandbox` needs on this machine: Linux, and bubblewrap (the sandbox), socat (the network
 * forwards) and ripgrep (the agents' own search tool, which must work inside it too). Checked before
 * anything runs: a sandbox that cannot be made is never replaced by an unsandboxed run.
 */
import { UserError } from "../errors.ts";

export interface SandboxTool {
  /** The program looked for on PATH. */
  bin: string;
  /** The Debian/Ubuntu package that installs it. */
  pkg: string;
  /** What it is used for, for `doctor`. */
  role: string;
  /** Its path, or null when missing. */
  path: string | null;
}

const TOOLS: Omit<SandboxTool, "path">[] = [
  { bin: "bwrap", pkg: "bubblewrap", role: "the sandbox (mount, pid and network namespaces)" },
  { bin: "socat", pkg: "socat", role: "the sandbox's forwards to allowed hosts" },
  { bin: "rg", pkg: "ripgrep", role: "the agents' file search inside the sandbox" },
];

/** Each tool the sandbox uses and where it is (for `wt-loop doctor`). */
export function sandboxTools(pathEnv = process.env.PATH ?? ""): SandboxTool[] {
  return TOOLS.map((t) => ({ ...t, path: Bun.which(t.bin, { PATH: pathEnv }) }));
}

/** Null when `--sandbox` can run here; otherwise what is missing and how to get it. */
export function sandboxProblem(platform: NodeJS.Platform = process.platform, pathEnv = process.env.PATH ?? ""): string | null {
  if (platform !== "linux")
    return `--sandbox is not supported on this platform (${platform}): it is built on Linux namespaces (bubblewrap). Run without --sandbox, or on Linux.`;
  const missing = sandboxTools(pathEnv).filter((t) => !t.path);
  if (!missing.length) return null;
  const names = missing.map((t) => `${t.bin} (${t.pkg})`).join(", ");
  return `--sandbox needs ${names}, not found on PATH. Install them (\`apt-get install bubblewrap socat ripgrep\`), or run without --sandbox. Nothing was run.`;
}

/** Throws the UserError that stops a sandboxed loop before anything runs. */
export function requireSandbox(platform: NodeJS.Platform = process.platform, pathEnv = process.env.PATH ?? ""): void {
  const problem = sandboxProblem(platform, pathEnv);
  if (problem) throw new UserError(problem);
}
