/**
 * `wt-loop config`: each loop option's value in this worktree and where it comes from (flag, restart, config
 * file, default), with the config files and the commands trust would refuse — as a table or as JSON.
 */
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { table } from "../text/format.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { layerOptions, originLabel, type Layered, type Origin } from "./config.ts";
import { FLAGS } from "./option-table.ts";
import { LoopOptions } from "./options.ts";
import { fileTrust, trustLine, untrustedCommands, type Untrusted } from "./trust.ts";
import { validate } from "./validate.ts";

/** The options config shows: every loop option but `--dry-run`, which is a way to start, not a setting. */
const SHOWN = FLAGS.filter((o) => o.key !== "dryRun");

export interface ConfigHere {
  worktree: string;
  statePath: string;
  layered: Layered;
  opts: LoopOptions;
  untrusted: Untrusted[];
}

/** The options as a start here with the flags `given` would have them (a mistyped flag is named first). */
export async function configHere(given: Record<string, unknown>): Promise<ConfigHere> {
  validate(LoopOptions, given);
  const worktree = (await resolveWorktree()).path;
  const statePath = loopPaths(worktree).state;
  const previous = await readState(statePath);
  const layered = layerOptions(worktree, given, previous);
  const opts = validate(LoopOptions, layered.options);
  return { worktree, statePath, layered, opts, untrusted: untrustedCommands(layered, opts, previous, statePath) };
}

export function configJson({ worktree, layered, opts, untrusted }: ConfigHere): unknown {
  const options = Object.fromEntries(SHOWN.map((o) => [o.flag, { value: opts[o.key] ?? null, ...originJson(layered.origins[o.key]) }]));
  const p = layered.files.project;
  const project = { ...p, trusted: p.sha256 ? fileTrust(p.path, p.sha256) === "trusted" : null };
  const refused = untrusted.flatMap((u) => u.commands.map((c) => ({ option: c.flag, value: c.value, source: u.source })));
  return { worktree, files: { ...layered.files, project }, options, refused };
}

export function configText({ statePath, layered, opts, untrusted }: ConfigHere): string {
  const rows = SHOWN.map((o) => {
    const v = opts[o.key];
    const value = v === undefined ? `(${o.meta.defaultText ?? "none"})` : String(v);
    return [o.flag, originLabel(layered.origins[o.key]), value];
  });
  const file = (f: { path: string; found: boolean }) => `${f.path}${f.found ? "" : " (none)"}`;
  const lines = [
    table(rows),
    `\nFiles: ${file(layered.files.project)}, ${file(layered.files.user)}. Flags win, then a restart's remembered options, then these files in this order.`,
  ];
  const trust = trustLine(layered, untrusted);
  if (trust) lines.push(trust);
  const remembered = untrusted.find((u) => u.why === "unsealed");
  if (remembered)
    lines.push(`${statePath} remembers commands no run of yours recorded; start would refuse ${remembered.commands.map((c) => c.flag).join(", ")}.`);
  return lines.join("\n");
}

const originJson = (o: Origin) =>
  o.from === "file" ? { origin: o.scope, file: o.file } : o.from === "remembered" ? { origin: "remembered", status: o.status } : { origin: o.from };
