/**
 * Where a JSON text stops being JSON. Bun's `JSON.parse` says only "Unexpected token '}'", with no
 * position; a person fixing a config file needs the line and column, as a compiler gives them.
 */
export interface JsonError {
  line: number;
  column: number;
  expected: string;
  found: string;
}

class Stop {
  constructor(
    readonly offset: number,
    readonly expected: string,
  ) {}
}

/** Null when `text` is valid JSON; else the first place where it is not, 1-based. */
export function jsonErrorAt(text: string): JsonError | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (expected: string): never => {
    throw new Stop(i, expected);
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === "\\") {
        const e = text[i + 1] ?? "";
        if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if (e && '"\\/bfnrt'.includes(e)) i += 2;
        else fail("an escape such as \\n or \\u0041");
      } else if (c < " ") fail("a closing '\"' on the same line");
      else i++;
    }
    fail("a closing '\"'");
  };
  const items = (close: string, item: () => void) => {
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      ws();
      if (text[i] === ",") i++;
      else if (text[i] === close) return void i++;
      else fail(`',' or '${close}'`);
      ws();
      if (text[i] === close) fail(close === "}" ? "another key (JSON allows no comma before '}')" : "another value (JSON allows no comma before ']')");
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{")
      return items("}", () => {
        ws();
        if (text[i] !== '"') fail("a key in double quotes");
        string();
        ws();
        if (text[i] !== ":") fail("':'");
        i++;
        value();
      });
    if (c === "[") return items("]", value);
    if (c === '"') return string();
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (number?.[0]) return void (i += number[0].length);
    const literal = ["true", "false", "null"].find((l) => text.startsWith(l, i));
    if (literal) return void (i += literal.length);
    fail("a value");
  };
  try {
    value();
    ws();
    if (i < text.length) fail("the end of the file");
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    const before = text.slice(0, err.offset);
    const line = before.split("\n").length;
    const found = err.offset < text.length ? `'${text[err.offset]}'` : "the end of the file";
    return { line, column: err.offset - before.lastIndexOf("\n"), expected: err.expected, found };
  }
}
