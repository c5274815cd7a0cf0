/** The loop screen's steering keys (p, +/-, n): what they ask of the loop, answered with the sentence to show. */
import type { Action } from "./frame.ts";

export async function steerAction(_statePath: string, a: Extract<Action, { kind: "pause" | "resume" | "max" | "note" }>): Promise<string> {
  return `${a.kind}: not available yet in this version.`;
}
