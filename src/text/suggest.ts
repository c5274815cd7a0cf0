/** "Did you mean …?": the nearest known word to a mistyped one, as git and cargo suggest. */

/** Edit distance where swapping two neighbouring letters counts once (`strat` → `start` is 1). */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word`, or null when none is near enough to be a likely typo (at most a
 * third of the word's letters wrong, and at least one letter right). A prefix also counts (`--it` → `--iteration`).
 */
export function nearest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  let best: { c: string; d: number } | null = null;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (!best || d < best.d) best = { c, d };
  }
  if (best && best.d <= Math.max(1, Math.floor(Math.max(w.length, 3) / 3)) && best.d < w.length) return best.c;
  const prefixed = candidates.filter((c) => w.length >= 2 && c.toLowerCase().startsWith(w));
  return prefixed.length === 1 ? prefixed[0]! : null;
}

/** " Did you mean 'x'?" or "" — to end a message about an unknown word. */
export const didYouMean = (word: string, candidates: readonly string[], quote = (s: string) => `'${s}'`) => {
  const n = nearest(word, candidates);
  return n ? ` Did you mean ${quote(n)}?` : "";
};

/** "a or b", "a, b or c": the choices in a message. */
export const orList = (xs: readonly string[]) => (xs.length <= 2 ? xs.join(" or ") : `${xs.slice(0, -1).join(", ")} or ${xs.at(-1)}`);

/** What `-` becomes in a document or a chat app: hyphen, non-breaking hyphen, figure, en and em dash, bar, minus sign, small and full-width hyphen-minus. */
const DASHES = "\u2010-\u2015\u2212\uFE58\uFE63\uFF0D";
/** One or two dashes, one of them typographic, then a name: `—json`, `–max=5`, `-–json`; not `— a task` nor `—fix the thing`. */
const TYPOGRAPHIC_FLAG = new RegExp(`^(?=-?[${DASHES}])[\\-${DASHES}]{1,2}([A-Za-z][^\\s=]*)(?:=|$)`);

/** The option name of a token that is a flag typed with a typographic dash, or null. */
export const typographicFlag = (token: string): string | null => TYPOGRAPHIC_FLAG.exec(token)?.[1] ?? null;

const TYPOGRAPHIC_MINUS = new RegExp(`^[${DASHES}](?=\\.?\\d)`);
/** A number pasted with a typographic minus or dash (`−5`, `–1.5`): what it is typed with ASCII '-', or null. */
export const typographicNumber = (token: string): string | null => (TYPOGRAPHIC_MINUS.test(token) ? `-${token.slice(1)}` : null);

/** Said after "Unknown option —json:". */
export const NOT_ASCII_DASH = "a dash that is not ASCII '-' (often from copying).";
