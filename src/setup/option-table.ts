/**
 * What is derived from the options table (setup/options.ts): one row per option with its flag, kind,
 * default and choices; the help text with its default; options → state for a new loop and
 * state → options for a restart.
 */
import { z } from "zod";
import type { State } from "../state/schema.ts";
import { kebab } from "../text/format.ts";
import { LoopOptions, NONE, type OptionKey, type OptionMeta } from "./options.ts";

export { camel, kebab } from "../text/format.ts";

export interface OptionInfo {
  key: OptionKey;
  /** The long flag's name, which is also the key in a config file. */
  flag: string;
  meta: OptionMeta;
  schema: z.ZodType;
  /** The value when nothing sets it (undefined: none). */
  default: unknown;
  kind: "boolean" | "integer" | "number" | "string";
  choices?: string[];
  /** `none` takes a remembered or configured value away. */
  removable: boolean;
}

/** The schema inside the defaults, optionals and preprocessing: the type a value has. */
function core(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional) s = s.def.innerType as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.def.out as z.ZodType;
    else return s;
  }
}

function info(key: OptionKey, schema: z.ZodType): OptionInfo {
  const c = core(schema);
  const choices = c instanceof z.ZodEnum ? c.options.map(String) : undefined;
  const kind = c instanceof z.ZodNumber ? (c.isInt ? "integer" : "number") : c instanceof z.ZodBoolean ? "boolean" : "string";
  const none = schema.safeParse(NONE);
  return {
    key,
    flag: kebab(key),
    meta: schema.meta() as unknown as OptionMeta,
    schema,
    default: schema instanceof z.ZodDefault ? schema.def.defaultValue : undefined,
    kind,
    choices,
    removable: none.success && none.data === undefined,
  };
}

/** The JSON Schema of an option's value, without its default and help (for the config file's schema). */
export function valueJsonSchema(o: OptionInfo): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(core(o.schema), { unrepresentable: "any" }) as Record<string, unknown>;
  return json;
}

export const OPTIONS: OptionInfo[] = Object.entries(LoopOptions.shape).map(([k, s]) => info(k as OptionKey, s as z.ZodType));
export const FLAGS = OPTIONS.filter((o) => !o.meta.positional);
export const optionByKey = (key: string) => OPTIONS.find((o) => o.key === key);

/** The value's placeholder: `n`, `claude|codex|gemini|command`; none for a switch. */
export const valueHint = (o: OptionInfo) => (o.kind === "boolean" ? undefined : (o.meta.hint ?? o.choices?.join("|") ?? o.flag));

/** What help says of the default: `30`, `off`, `ask; keep when not a TTY`, or null when there is none to say. */
export function defaultLabel(o: OptionInfo): string | null {
  if (o.meta.defaultText) return o.meta.defaultText;
  if (o.default === undefined) return null;
  const value = o.default === false ? "off" : o.default === true ? "on" : String(o.default);
  return o.meta.defaultNote ? `${value}; ${o.meta.defaultNote}` : value;
}

export const helpText = (o: OptionInfo) => {
  const d = defaultLabel(o);
  return d === null ? o.meta.help : `${o.meta.help} (default: ${d})`;
};

/** A value as it would be typed after the flag: quoted for the shell when it needs to be. */
export function formatValue(v: unknown): string {
  const s = String(v);
  return /^[\w./:@%+,=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

type OptionState = Partial<Record<keyof State, unknown>>;

/** The state fields a loop's options fill (a field of an option not given is null). */
export function toState(opts: LoopOptions): OptionState {
  const out: OptionState = {};
  for (const o of OPTIONS) if (o.meta.state) out[o.meta.state] = opts[o.key] ?? null;
  return out;
}

/** The remembered options of a state, in `LoopOptions` keys (fields a state lacks or left empty are not). */
export function fromState(state: State): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of OPTIONS) {
    const v = o.meta.remembered && o.meta.state ? state[o.meta.state] : undefined;
    if (v !== undefined && v !== null) out[o.key] = v;
  }
  return out;
}
