/**
 * Token counts by category, without zod: the state's `Tokens` schema (schema.ts) has this shape and
 * re-exports these; the screen and the agents' adapters, on `run`'s way to its first frame, take them
 * from here and do not build the state's schema (issue 35).
 */
export interface TokenCounts {
  input: number;
  output: number;
  cache_read: number;
  cache_creation: number;
}

export const ZERO_TOKENS: TokenCounts = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
export const sumTokens = (t: TokenCounts) => t.input + t.output + t.cache_read + t.cache_creation;
/** Adds `more` into `to`, kind by kind (a run's spending into an iteration's, an iteration's into the loop's). */
export function addTokens(to: TokenCounts, more: TokenCounts): void {
  to.input += more.input;
  to.output += more.output;
  to.cache_read += more.cache_read;
  to.cache_creation += more.cache_creation;
}
