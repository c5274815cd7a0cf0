/**
 * The loop's options from every layer, each value knowing where it came from. Precedence, highest
 * first: flags, the remembered run (a restart), the project's `.wt-loop.json`, the user's file, the
 * defaults. The origin is kept per option so that `wt-loop config` and `--dry-run` can show it, and
 * so that a later trust step can ask before running a command a file set (`verify`, `notify`,
 * `agent-cmd`): the origin names the file.
 */
import type { State } from "../state/schema.ts";
import { configPaths, PROJECT_FILE, readConfigFile, type ConfigFile, type ConfigScope } from "./config-file.ts";
import type { LoopOptions, OptionKey } from "./options.ts";
import { UserError } from "../errors.ts";
import { formatValue, OPTIONS } from "./option-table.ts";
import { continuingNote, rememberedOptions } from "./restart.ts";

export type Origin =
  | { from: "flag" }
  | { from: "remembered"; status: State["status"] }
  | { from: "file"; scope: ConfigScope; file: string }
  | { from: "default" };

export interface Layered {
  /** The merged values, not yet validated (commands validate them, naming flags as typed). */
  options: Record<string, unknown>;
  /** Where each option's value came from; `default` for every option nothing set. */
  origins: Record<OptionKey, Origin>;
  /** The restart's "Continuing the previous loop…" sentence, or null. */
  note: string | null;
  files: Record<ConfigScope, { path: string; found: boolean; sha256: string | null }>;
}

/**
 * Layers the options for a loop in `worktree`. `previous` is the state a plain `start` may continue
 * (null for `run`, which continues nothing). Throws a UserError for a bad config file.
 */
export function layerOptions(worktree: string, given: Record<string, unknown>, previous: State | null, env = process.env): Layered {
  const paths = configPaths(worktree, env);
  // The user's file first: a broken one is reported even when the project's is broken too.
  const user = readConfigFile(paths.user, "user");
  const project = readConfigFile(paths.project, "project");
  const remembered = rememberedOptions(previous);
  const layers: [Record<string, unknown> | undefined, Origin][] = [
    [user?.values, fileOrigin(user)],
    [project?.values, fileOrigin(project)],
    [remembered ?? undefined, { from: "remembered", status: previous?.status ?? "stopped" }],
    [given, { from: "flag" }],
  ];
  const options: Record<string, unknown> = {};
  const origins = Object.fromEntries(OPTIONS.map((o) => [o.key, { from: "default" }])) as Record<OptionKey, Origin>;
  for (const [values, origin] of layers)
    for (const [k, v] of Object.entries(values ?? {})) {
      // The sandbox is only ever turned on by a layer: a cloned repository's file (or a planted state) cannot turn off the user's.
      if (k === "sandbox" && options.sandbox === true && v !== true) continue;
      options[k] = v;
      origins[k as OptionKey] = origin;
    }
  return {
    options,
    origins,
    note: remembered && previous ? continuingNote(previous, remembered, given) : null,
    files: {
      project: { path: paths.project, found: project !== null, sha256: project?.sha256 ?? null },
      user: { path: paths.user, found: user !== null, sha256: user?.sha256 ?? null },
    },
  };
}

const fileOrigin = (f: ConfigFile | null): Origin => (f ? { from: "file", scope: f.scope, file: f.path } : { from: "default" });

/** "flag", "remembered (the stuck run)", ".wt-loop.json", "~/.config/wt-loop/config.json", "default". */
export function originLabel(o: Origin, home = process.env.HOME): string {
  switch (o.from) {
    case "flag":
      return "flag";
    case "remembered":
      return `remembered (the ${o.status} run)`;
    case "file":
      if (o.scope === "project") return PROJECT_FILE;
      return home && o.file.startsWith(`${home}/`) ? `~${o.file.slice(home.length)}` : o.file;
    case "default":
      return "default";
  }
}

/** The options something other than a default set, grouped by origin: for `--dry-run`. */
export function setBy(opts: LoopOptions, origins: Record<OptionKey, Origin>): string[] {
  const groups = new Map<string, string[]>();
  for (const o of OPTIONS) {
    const origin = origins[o.key];
    if (origin.from === "default" || o.meta.positional || o.key === "dryRun") continue;
    const label = originLabel(origin);
    groups.set(label, [...(groups.get(label) ?? []), `--${o.flag}${opts[o.key] === undefined ? " none" : ""}`]);
  }
  return [...groups].map(([label, flags]) => `${label}: ${flags.join(", ")}`);
}

/**
 * A refusal that names an option the user did not type (`--agent` remembered from the stopped run, or
 * set in a config file) says where its value came from: otherwise "choose another with --agent" reads
 * as a mistake in a command line that never had one. The error is returned with its message extended.
 */
export function withOrigins(err: unknown, layered: Pick<Layered, "options" | "origins">): unknown {
  if (!(err instanceof UserError)) return err;
  const named = OPTIONS.filter((o) => {
    const from = layered.origins[o.key].from;
    return (from === "remembered" || from === "file") && new RegExp(`--${o.flag}(?![\\w-])`).test(err.message);
  });
  if (!named.length) return err;
  const said = named.map((o) => {
    const origin = layered.origins[o.key];
    const where = origin.from === "remembered" ? `remembered from the ${origin.status} run` : `set in ${originLabel(origin)}`;
    return `--${o.flag} ${formatValue(layered.options[o.key])} was ${where}`;
  });
  err.message = `${err.message.trimEnd()} (${said.join("; ")}; a flag given on the command line replaces it.)`;
  return err;
}
