/**
 * Text that came from an agent, a file or a command must do nothing on a terminal but be read. A
 * control character in it would act: OSC 52 writes the clipboard, OSC 0 renames the window, CSI 2J
 * clears the screen, OSC 8 plants a link, an 8-bit CSI (U+009B) does what ESC [ does, a lone CR
 * overwrites the line. `inert` shows each such character instead (`^[` for ESC, as `cat -v` does;
 * `\x9b` for C1), so the user sees that something was there; newline and tab stay.
 *
 * Two layers use it: the renderers make their data inert (inertDeep, before they add colour), and
 * every write to a terminal goes through `forTerminal` (term/print.ts, the inline view), which
 * lets only complete colour sequences (SGR, what term/color.ts paints) through. The log files and
 * the state keep the raw bytes; `--json` output escapes the controls JSON does not (term/print.ts).
 */

// C0 but tab and newline, a CR not before a newline, DEL, C1.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;
const CONTROL_TEST = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;
// The same, or a colour sequence (kept by forTerminal).
const CONTROL_OR_SGR = /\x1b\[[0-9;]*m|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;

/** How a control character is shown: `^[`, `^M`, `^?` (DEL), `\x9b` (C1). */
export function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return "^?";
  return `\\x${code.toString(16)}`;
}

/** `text` with every control character but newline and tab made visible. */
export function inert(text: string): string {
  // Most text has none: test first, so a clean megabyte is not copied.
  return CONTROL_TEST.test(text) ? text.replace(CONTROL, visible) : text;
}

/** For one line (a window title, a notification): newline and tab become spaces too. */
export const inertLine = (text: string) => inert(text).replace(/[\n\t]/g, " ");

/** `value` with every string in it (deep: objects, arrays) made inert; the same value when it has none to change. */
export function inertDeep<T>(value: T): T {
  if (typeof value === "string") return inert(value) as T;
  // Copied only where something changed: a clean 500-iteration state costs a walk, not a copy
  // (status pays this at start-up).
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = inertDeep(value[i]);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return (out ?? value) as T;
  }
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      const was = (value as Record<string, unknown>)[k];
      const v = inertDeep(was);
      if (v !== was) (out ??= { ...(value as Record<string, unknown>) })[k] = v;
    }
    return (out ?? value) as T;
  }
  return value;
}

// What JSON.stringify writes for a character inertDeep changes: every C0 control but tab and newline as
// `\b`, `\f`, `\r` or `\u00XX`, DEL and C1 as they are. It also finds some text that changes nothing (an
// escaped backslash before `b`, a CR before a newline): then the walk decides.
const CONTROL_IN_JSON = /\\u00[01][0-9a-f]|\\[bfr]|[\x7f-\x9f]/;

/**
 * inertDeep for data read from JSON (plain objects, arrays, strings, numbers, booleans, null), asking
 * JSON.stringify first whether any string could change: a clean state is then not walked at all. The walk
 * calls itself for every value, so `status`'s start-up compiled it (~1 ms a run, docs/performance.md).
 */
export function inertData<T>(value: T): T {
  return CONTROL_IN_JSON.test(JSON.stringify(value)) ? inertDeep(value) : value;
}

/**
 * The last gate before a terminal: `inert`, except that complete colour sequences (ESC [ digits m)
 * pass. The renderers made their data inert before colouring it, so what passes is their colour.
 */
export function forTerminal(text: string): string {
  return CONTROL_TEST.test(text) ? text.replace(CONTROL_OR_SGR, (m) => (m.length > 1 && m.startsWith("\x1b[") ? m : visible(m))) : text;
}
