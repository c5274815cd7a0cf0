/**
 * A one-line summary of a tool call's input (a ToolUse event's `summary`): the field a human would look
 * at first. Apart from the events' schemas (stream.ts): the adapters that use it are loaded on `run`'s way
 * to its first frame (the options are checked against them), the schemas are not (issue 35).
 */
export function summarizeInput(input: unknown, max = 100): string {
  if (input === null || typeof input !== "object") return input === undefined ? "" : clip(String(input), max);
  const obj = input as Record<string, unknown>;
  for (const key of ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt"]) {
    const v = obj[key];
    if (typeof v === "string" && v) return clip(v.split("\n")[0]!, max);
  }
  return clip(JSON.stringify(obj), max);
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max - 1) + "…" : s);
