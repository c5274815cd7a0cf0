/**
 * A `git` on PATH that kills its parent (the runner) with SIGKILL at the one git call whose arguments
 * contain `at`: `before` it runs, or `after` it ran. Every other call is the real git.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./repo.ts";

export function killingGit(at: string, when: "before" | "after"): { PATH: string } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-killing-git-");
  const script = [
    "#!/bin/sh",
    `case "$*" in *${JSON.stringify(at)}*)`,
    when === "before" ? "  kill -9 $PPID; exit 137 ;;" : `  ${JSON.stringify(real)} "$@"; rc=$?; kill -9 $PPID; exit $rc ;;`,
    "esac",
    `exec ${JSON.stringify(real)} "$@"`,
    "",
  ].join("\n");
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  return { PATH: `${dir}:${process.env.PATH}` };
}
