/**
 * The folders a sandboxed command's program needs put back inside. Inside the sandbox /tmp is the loop's own
 * empty folder and the runtime folders are emptied (sandbox.ts), so a program living there — an `--agent-cmd`
 * script in a clone under /tmp, an agent installed in that clone's node_modules — would not be found. Its
 * folder comes back read-only; for a program installed in a node_modules folder, that whole folder (its
 * dependencies sit beside it). Sockets in what comes back are still covered (sandbox.ts).
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, resolve, sep } from "node:path";

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** The program `argv` starts: argv[0], or the first command word of `sh -c '…'`. */
function programWord(argv: string[]): string | undefined {
  const [first, flag, script] = argv;
  if (!first) return undefined;
  if (!/(^|\/)(ba|da)?sh$/.test(first) || flag !== "-c" || script === undefined) return first;
  // The first word that is not an assignment (`FOO=1 ./agent`), its quotes removed.
  for (const raw of script.trim().split(/\s+/)) {
    const word = raw.replace(/^['"]|['"]$/g, "").replace(/[;&|]+$/, "");
    if (word && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) return word;
  }
  return undefined;
}

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

function locate(word: string, cwd: string, env: Record<string, string | undefined>): string | undefined {
  if (word.includes("/")) {
    const p = isAbsolute(word) ? word : resolve(cwd, word);
    return executable(p) ? p : undefined;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && executable(resolve(cwd, dir, word))) return resolve(cwd, dir, word);
  return undefined;
}

/** The outermost node_modules folder `p` lies in, or else `p`'s folder. */
function folderOf(p: string): string {
  const at = p.split(sep).indexOf("node_modules");
  return at > 0
    ? p
        .split(sep)
        .slice(0, at + 1)
        .join(sep)
    : dirname(p);
}

/** Folders (read-only) the command's program needs from under /tmp or a folder emptied inside (`hidden`). */
export function programFolders(argv: string[], cwd: string, env: Record<string, string | undefined>, hidden: string[] = []): string[] {
  const word = programWord(argv);
  const path = word === undefined ? undefined : locate(word, cwd, env);
  if (!path) return [];
  const out = new Set<string>();
  for (const p of [path, realpathSync(path)]) {
    const folder = folderOf(p);
    if (["/tmp", ...hidden].some((h) => under(folder, h))) out.add(folder);
  }
  // One folder inside another needs no bind of its own.
  return [...out].filter((f) => ![...out].some((o) => o !== f && under(f, o)));
}
