import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { configPaths, PROJECT_FILE, readConfigFile } from "../setup/config-file.ts";
import { COMMAND_OPTIONS, revokeFile, trustedFilesNow, trustFile, trustStorePath } from "../setup/trust.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";
import { print } from "../term/print.ts";

const args = {
  show: { type: "boolean", description: "List the trusted project files, and whether each still has the content you trusted" },
  revoke: { type: "boolean", description: "Stop trusting this worktree's .wt-loop.json" },
} as const;

export default defineCommand({
  meta: { name: "trust" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("trust", args, rawArgs, a);
    if (a.show && a.revoke) throw new UserError("Give --show or --revoke, not both.");
    if (a.show) return show();
    const path = configPaths((await resolveWorktree()).path).project;
    if (a.revoke) {
      print(revokeFile(path) ? `Revoked: ${path} is no longer trusted.` : `${path} was not trusted; nothing changed.`);
      return;
    }
    // Checked whole first: a file wt-loop would refuse is not worth trusting.
    const file = readConfigFile(path, "project");
    if (!file) throw new UserError(`There is no ${PROJECT_FILE} in this worktree (${path}): nothing to trust.`);
    trustFile(path, file.sha256);
    const commands = COMMAND_OPTIONS.filter((o) => typeof file.values[o.key] === "string").map((o) => `  ${o.flag}: ${file.values[o.key]}`);
    print(`Trusted ${path} as it is now (sha256 ${file.sha256.slice(0, 12)}…); a change to it needs \`wt-loop trust\` again.`);
    print(commands.length ? `wt-loop will run its commands:\n${commands.join("\n")}` : "It sets no command.");
  }),
});

function show(): void {
  const entries = trustedFilesNow();
  if (!entries.length) return print(`No project file is trusted (${trustStorePath()}).`);
  const said = { trusted: "trusted", changed: "changed since, not trusted", missing: "missing" } as const;
  for (const e of entries) print(`${e.path}  ${e.trusted_at}  ${said[e.now]}`);
}
