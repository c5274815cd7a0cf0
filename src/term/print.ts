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
export const printJson = (value: unknown) => printJsonText(JSON.stringify(value, null, 2));

/** Lines of a JSON document written piece by piece (`log --json`), escaped as `printJson` escapes. */
export const printJsonText = (text: string) => console.log(text.replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));

/** A warning on stderr: something the user should know that does not stop the command. */
export const warn = (message: string) => printError(`warning: ${message}`);
