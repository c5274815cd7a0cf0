/**
 * What the end box and `status` say when the accepted work took files of the user's. Apart from
 * user-work.ts so that `status` does not load the snapshot machinery (and node:crypto) to say it.
 */
import type { UserWork } from "../state/schema.ts";

/** Files named in a message: the rest are counted, and `git diff --stat <ref>` shows them all. */
const NAMED = 20;

/** A path as a shell word: as it is when that is safe, else single-quoted. */
const shellWord = (p: string) => (/^[\w./@%+=:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/** What the end box and `status` say when the accepted work took files of the user's. */
export function lostMessage(w: UserWork): string {
  const lost = w.lost ?? [];
  const named = lost.slice(0, NAMED);
  const more = lost.length - named.length;
  const list = named.join(", ") + (more ? ` and ${more} more (\`git diff --stat ${w.ref}\` shows them)` : "");
  return (
    `The loop's work deleted or changed ${lost.length === 1 ? "a file that held" : `${lost.length} files that held`} your ` +
    `uncommitted work from before it started: ${list}. Your versions are kept in ${w.ref}: ` +
    `\`git restore --source=${w.ref} -- ${named.map(shellWord).join(" ")}\` brings them back (over the loop's versions); ` +
    `\`git update-ref -d ${w.ref}\` removes that ref once you no longer need it.`
  );
}
