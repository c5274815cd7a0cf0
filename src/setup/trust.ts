/**
 * Trusting the commands a repository's `.wt-loop.json` sets, as `mise trust` and `direnv allow` do: a
 * cloned repository could set `verify`, `notify` or `agent-cmd` to anything, so those keys (the options
 * marked `runsCommand`) apply only once the user trusted the file's exact content. The trusted files
 * live in the user's config folder (`trusted.json`: real path and sha256), which no repository writes.
 *
 * A restart's remembered commands come from `.claude/loop-state.json`, which a repository can commit
 * too. A state carries a seal of its commands (an HMAC under a key in the user's config folder): only
 * a state this user's own run wrote remembers commands that run without asking.
 */
import { createHmac, randomBytes } from "node:crypto";
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, rmSync, writeSync, constants } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { UserError } from "../errors.ts";
import { realOrSame } from "../proc/real-path.ts";
import { writeFileSafe } from "../proc/safe-fs.ts";
import type { State } from "../state/schema.ts";
import type { Layered } from "./config.ts";
import { configBase, contentSha256, PROJECT_FILE } from "./config-file.ts";
import type { LoopOptions } from "./options.ts";
import { OPTIONS } from "./option-table.ts";

export const COMMAND_OPTIONS = OPTIONS.filter((o) => o.meta.runsCommand);

const Entry = z.object({ path: z.string(), sha256: z.string(), trusted_at: z.string() });
const Store = z.object({ version: z.literal(1), files: z.array(Entry) });
export type TrustEntry = z.infer<typeof Entry>;

type Env = Record<string, string | undefined>;
const dir = (env: Env) => join(configBase(env), "wt-loop");
export const trustStorePath = (env: Env = process.env) => join(dir(env), "trusted.json");

export function readTrusted(env: Env = process.env): TrustEntry[] {
  let text: string;
  try {
    text = readFileSync(trustStorePath(env), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  // Neither guessed nor overwritten: trusting anew would drop every entry it holds.
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // reported below
  }
  const r = Store.safeParse(json);
  if (!r.success)
    throw new UserError(
      `${trustStorePath(env)} is not wt-loop's list of trusted files (broken JSON or another format). Fix it, or remove it and trust your project files again.`,
    );
  return r.data.files;
}

/** Written whole (temp file, rename), 0600, never through a link under the config folder. */
function writeTrusted(files: TrustEntry[], env: Env): void {
  mkdirSync(configBase(env), { recursive: true });
  writeFileSafe(configBase(env), trustStorePath(env), `${JSON.stringify({ version: 1, files }, null, 2)}\n`, 0o600);
}

/**
 * What a project file's trust is recorded under: its folder's real path and its own name. Never what a
 * link at that name points to: a clone that commits `.wt-loop.json` as a link to a sibling checkout's
 * trusted file would be covered by that file's trust, and its commands would run the clone's Makefile.
 */
const trustKey = (path: string) => join(realOrSame(dirname(path)), basename(path));

/** Where `path` points when it is a symbolic link (null: it is not one). */
export function linkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}

export type FileTrust = "trusted" | "changed" | "untrusted" | "link";

export function fileTrust(path: string, sha256: string, env: Env = process.env): FileTrust {
  if (linkTarget(path) !== null) return "link"; // the no-links rule: never trusted, whatever it points to
  const mine = readTrusted(env).filter((e) => e.path === trustKey(path));
  if (mine.some((e) => e.sha256 === sha256)) return "trusted";
  return mine.length ? "changed" : "untrusted";
}

/** Records `path` with this content as trusted (replacing an earlier content's entry); a link is refused. */
export function trustFile(path: string, sha256: string, env: Env = process.env): TrustEntry {
  const to = linkTarget(path);
  if (to !== null) throw new UserError(`${linkRefusal(path, to)} ${linkAdvice(path, to)}`);
  const entry = { path: trustKey(path), sha256, trusted_at: new Date().toISOString() };
  writeTrusted([...readTrusted(env).filter((e) => e.path !== entry.path), entry], env);
  return entry;
}

const linkRefusal = (path: string, to: string) =>
  `${path} is a symbolic link (to ${to}): wt-loop never trusts a project file through a link, whose target can be another checkout's trusted file.`;
const linkAdvice = (path: string, to: string) =>
  `If you mean its content, put a copy in its place (cp --remove-destination ${resolve(dirname(path), to)} ${path}), read it, then run \`wt-loop trust\`.`;

/** The trusted project files, each with whether it still has the content trusted (`wt-loop trust --show`). */
export function trustedFilesNow(env: Env = process.env): (TrustEntry & { now: "trusted" | "changed" | "missing" })[] {
  return readTrusted(env).map((e) => {
    let text: string;
    try {
      text = readFileSync(e.path, "utf8");
    } catch {
      return { ...e, now: "missing" };
    }
    return { ...e, now: contentSha256(text) === e.sha256 ? "trusted" : "changed" };
  });
}

/** Forgets `path`; false when it was not trusted. */
export function revokeFile(path: string, env: Env = process.env): boolean {
  const files = readTrusted(env);
  const kept = files.filter((e) => e.path !== trustKey(path));
  if (kept.length === files.length) return false;
  writeTrusted(kept, env);
  return true;
}

/** Commands of one source that would run untrusted. */
export interface Untrusted {
  /** The project file, or the state file that remembers them. */
  source: string;
  why: FileTrust | "unsealed";
  commands: { flag: string; value: string }[];
}

/**
 * The commands the layered options would run that nobody trusted: those from a project file not
 * trusted with this content, and those remembered by a state this user's run did not seal.
 */
export function untrustedCommands(layered: Layered, opts: LoopOptions, previous: State | null, statePath: string, env: Env = process.env): Untrusted[] {
  const fromFile: Untrusted["commands"] = [];
  const remembered: Untrusted["commands"] = [];
  for (const o of COMMAND_OPTIONS) {
    const value = opts[o.key];
    if (typeof value !== "string") continue;
    const origin = layered.origins[o.key];
    if (origin.from === "file" && origin.scope === "project") fromFile.push({ flag: o.flag, value });
    if (origin.from === "remembered") remembered.push({ flag: o.flag, value });
  }
  const out: Untrusted[] = [];
  const project = layered.files.project;
  if (fromFile.length && project.sha256) {
    const why = fileTrust(project.path, project.sha256, env);
    if (why !== "trusted") out.push({ source: project.path, why, commands: fromFile });
  }
  if (remembered.length && previous && !sealHolds(previous, env)) out.push({ source: statePath, why: "unsealed", commands: remembered });
  return out;
}

/** What `--dry-run` and `wt-loop config` say about the project file. */
export function trustLine(layered: Layered, untrusted: Untrusted[], env: Env = process.env): string | null {
  const p = layered.files.project;
  if (!p.sha256) return null;
  const refused = untrusted.flatMap((u) => u.commands.map((c) => `${c.flag}: ${c.value}`));
  const state = fileTrust(p.path, p.sha256, env);
  const head =
    state === "trusted"
      ? `${PROJECT_FILE} is trusted`
      : `${PROJECT_FILE} is not trusted` +
        `${state === "changed" ? " (changed since you trusted it)" : state === "link" ? " (a symbolic link: never trusted)" : ""}`;
  if (!refused.length) return `${head}${state === "trusted" ? "" : "; it sets no command, so nothing is refused"}.`;
  return `${head}; start would refuse ${refused.join(" · ")} (\`wt-loop trust\` trusts the file).`;
}

/** What a refusal (or the question on a terminal) shows: each source, why, and its commands. */
export function describeUntrusted(untrusted: Untrusted[]): string {
  return untrusted
    .map((u) => {
      const head =
        u.why === "unsealed"
          ? `${u.source} remembers commands that no run of yours recorded (a state file can come with the repository):`
          : u.why === "link"
            ? `${linkRefusal(u.source, linkTarget(u.source) ?? "?")} It sets commands wt-loop would run:`
            : u.why === "changed"
              ? `${u.source} changed since you trusted it, and it sets commands wt-loop would run:`
              : `${u.source} is not trusted, and it sets commands wt-loop would run:`;
      return [head, ...u.commands.map((c) => `  ${c.flag}: ${c.value}`)].join("\n");
    })
    .join("\n");
}

/** How to go on after a refusal. */
export function untrustedAdvice(untrusted: Untrusted[]): string {
  const out = ["Nothing was run or written."];
  const link = untrusted.find((u) => u.why === "link");
  if (link) out.push(linkAdvice(link.source, linkTarget(link.source) ?? "?"));
  else if (untrusted.some((u) => u.why !== "unsealed"))
    out.push(`Read ${PROJECT_FILE}, then trust it with \`wt-loop trust\` (or give these options as flags).`);
  const remembered = untrusted.find((u) => u.why === "unsealed");
  if (remembered)
    out.push(
      `To run a remembered command, give it as a flag (\`--${remembered.commands[0]!.flag} '…'\`); ` +
        `\`--${remembered.commands[0]!.flag} none\` drops it; or remove ${remembered.source} to start afresh.`,
    );
  return out.join(" ");
}

// --- the seal of a state's commands ---

const KEY_FILE = "seal.key";

/** The user's seal key, made once (0600, put in place whole with link(), so two starts agree on one). */
function sealKey(env: Env, create: boolean): string | null {
  const path = join(dir(env), KEY_FILE);
  try {
    return readFileSync(path, "utf8").trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" || !create) return null;
  }
  mkdirSync(dir(env), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, randomBytes(32).toString("hex"));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readFileSync(path, "utf8").trim() || null;
}

/**
 * The commands the first seals covered, always in the sealed text; a command option added since is
 * in it only when set, so a state sealed before that option existed keeps a seal that holds.
 */
const FIRST_SEALED: (keyof State)[] = ["agent_cmd", "notify", "verify"];
const sealed = (key: string, s: State) =>
  createHmac("sha256", key)
    .update(
      JSON.stringify([
        realOrSame(s.worktree_path),
        ...COMMAND_OPTIONS.flatMap((o): unknown[] => {
          const v = o.meta.state ? (s[o.meta.state] ?? null) : null;
          return o.meta.state && FIRST_SEALED.includes(o.meta.state) ? [v] : v === null ? [] : [[o.meta.state, v]];
        }),
      ]),
    )
    .digest("hex");

/**
 * The seal for a new loop's state; null when it runs no command. A key that cannot be made is an
 * error of the environment (named with its folder): an unsealed state would be refused by its own `run`.
 */
export function sealCommands(s: State, env: Env = process.env): string | null {
  if (!COMMAND_OPTIONS.some((o) => o.meta.state && typeof s[o.meta.state] === "string")) return null;
  const key = sealKey(env, true);
  return key ? sealed(key, s) : null;
}

/** Whether this user's own run wrote the state's commands (a state with none needs no seal). */
export function sealHolds(s: State, env: Env = process.env): boolean {
  if (!COMMAND_OPTIONS.some((o) => o.meta.state && typeof s[o.meta.state] === "string")) return true;
  const key = sealKey(env, false);
  return Boolean(key && s.commands_seal && s.commands_seal === sealed(key, s));
}

/** The commands of a state its seal does not vouch for (`run` of a `starting` state). */
export function unsealedCommands(s: State, statePath: string, env: Env = process.env): Untrusted[] {
  if (sealHolds(s, env)) return [];
  const commands = COMMAND_OPTIONS.flatMap((o) => {
    const v = o.meta.state ? s[o.meta.state] : null;
    return typeof v === "string" ? [{ flag: o.flag, value: v }] : [];
  });
  return [{ source: statePath, why: "unsealed", commands }];
}
