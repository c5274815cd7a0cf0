/**
 * Splits a byte stream into lines. Only the new chunk is searched and nothing is re-sliced, so a
 * 10 MB line arriving in 64 KB chunks costs O(size), not O(size²), and so do many small lines.
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let pending: string[] = [];
  const emit = (line: string) => onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", start)) {
      const piece = text.slice(start, i);
      if (pending.length) {
        pending.push(piece);
        emit(pending.join(""));
        pending = [];
      } else emit(piece);
      start = i + 1;
    }
    if (start < text.length) pending.push(text.slice(start));
  }
  const rest = pending.join("") + decoder.decode();
  if (rest) emit(rest);
}
