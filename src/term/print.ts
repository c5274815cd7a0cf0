/**
 * The one way wt-loop's commands write to stdout and stderr. Everything passes `forTerminal`
 * (term/inert.ts): whatever a renderer missed of an agent's or a file's text arrives shown, never
 * acting on the terminal. A test (test/term/print.test.ts) keeps other writes out of src/.
 */
import { forTerminal } from "./inert.ts";

/** A line (or lines) on stdout. console.log, not process.stdout: cli.ts says why. */
export const print = (text: string) => console.log(forTerminal(text));

/** A line (or lines) on stderr: errors, warnings, notes beside a machine's output. */
export const printError = (text: string) => console.error(forTerminal(text));

/** Text as it is, without a newline added (e.g. a file's whole content). */
export const write = (text: string) => process.stdout.write(forTerminal(text));

/**
 * `--json` output. JSON.stringify escapes U+0000–U+001F but not DEL or the C1 controls (U+0080–U+009F),
 * which some terminals act on: they are escaped too (`\u009b`), which a JSON reader reads as the same string.
 */
export const printJson = (value: unknown) => console.log(jsonText(value));

/** What `printJson` writes, without the newline. */
export const jsonText = (value: unknown) => escapeControls(JSON.stringify(value, null, 2));

/** Lines of a JSON document written piece by piece (`log --json`), escaped as `printJson` escapes. */
export const printJsonText = (text: string) => console.log(escapeControls(text));

/**
 * DEL and the C1 controls as `\u007f`…`\u009f`. A text whose UTF-8 is as long as it is has no character at or
 * above U+0080: with no DEL either there is nothing to escape, told by two native scans that cost a sixth of
 * the regular expression's (a 356 kB `status --json`: ~35 against ~130 µs, JIT off).
 */
function escapeControls(text: string): string {
  if (Buffer.byteLength(text) === text.length && !text.includes("\x7f")) return text;
  return text.replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A warning on stderr: something the user should know that does not stop the command. */
export const warn = (message: string) => printError(`warning: ${message}`);
