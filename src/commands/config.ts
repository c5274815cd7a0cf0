import { defineCommand } from "citty";
import { layerOptions, originLabel, type Origin } from "../setup/config.ts";
import { FLAGS } from "../setup/option-table.ts";
import { LoopOptions } from "../setup/options.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { table } from "../text/format.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";
import { validate } from "../setup/validate.ts";
import { fileTrust, trustLine, untrustedCommands } from "../setup/trust.ts";
import { loopArgs } from "./args/loop-args.ts";
import { print, printJson } from "../term/print.ts";

// The loop's flags say "what if I gave this": `wt-loop config --max 5` shows the flag winning.
const { "dry-run": _, ...flags } = loopArgs;
const args = { ...flags, json: { type: "boolean", description: "Print the values and where each comes from as JSON" } } as const;
const shown = FLAGS.filter((o) => o.key !== "dryRun");

export default defineCommand({
  meta: { name: "config" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const { json, ...given } = givenOptions("config", args, rawArgs, a);
    validate(LoopOptions, given);
    const wt = await resolveWorktree();
    const statePath = loopPaths(wt.path).state;
    const previous = await readState(statePath);
    const layered = layerOptions(wt.path, given, previous);
    const opts = validate(LoopOptions, layered.options);
    const untrusted = untrustedCommands(layered, opts, previous, statePath);
    if (json) {
      const options = Object.fromEntries(shown.map((o) => [o.flag, { value: opts[o.key] ?? null, ...originJson(layered.origins[o.key]) }]));
      const p = layered.files.project;
      const project = { ...p, trusted: p.sha256 ? fileTrust(p.path, p.sha256) === "trusted" : null };
      const refused = untrusted.flatMap((u) => u.commands.map((c) => ({ option: c.flag, value: c.value, source: u.source })));
      printJson({ worktree: wt.path, files: { ...layered.files, project }, options, refused });
      return;
    }
    const rows = shown.map((o) => {
      const v = opts[o.key];
      const value = v === undefined ? `(${o.meta.defaultText ?? "none"})` : String(v);
      return [o.flag, originLabel(layered.origins[o.key]), value];
    });
    const file = (f: { path: string; found: boolean }) => `${f.path}${f.found ? "" : " (none)"}`;
    print(table(rows));
    print(
      `\nFiles: ${file(layered.files.project)}, ${file(layered.files.user)}. Flags win, then a restart's remembered options, then these files in this order.`,
    );
    const trust = trustLine(layered, untrusted);
    if (trust) print(trust);
    const remembered = untrusted.find((u) => u.why === "unsealed");
    if (remembered) print(`${statePath} remembers commands no run of yours recorded; start would refuse ${remembered.commands.map((c) => c.flag).join(", ")}.`);
  }),
});

const originJson = (o: Origin) =>
  o.from === "file" ? { origin: o.scope, file: o.file } : o.from === "remembered" ? { origin: "remembered", status: o.status } : { origin: o.from };
