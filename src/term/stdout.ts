/**
 * A reader that goes away (`wt-loop history | head -1`, `monitor | head`) makes the next write to
 * stdout throw EPIPE. That is the reader's choice, not an error: output ends quietly. A command
 * whose output is all it does then exits 0; the loop runner keeps going (its output is only a view
 * of the loop, which must not die with the view) and writes nothing more.
 */
let whenClosed: "exit" | "continue" = "exit";
let closed = false;

/** For `run`: a closed stdout only ends the output, never the loop. */
export function keepRunningWhenStdoutCloses(): void {
  whenClosed = "continue";
}

const isEpipe = (err: unknown) => (err as { code?: string } | null)?.code === "EPIPE";

function onEpipe(): void {
  closed = true;
  if (whenClosed === "exit") process.exit(0);
}

export function guardStdout(stream: NodeJS.WriteStream = process.stdout): void {
  const write = stream.write.bind(stream) as (...a: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    if (closed) return true;
    try {
      return write(...args);
    } catch (err) {
      if (!isEpipe(err)) throw err;
      onEpipe();
      return true;
    }
  }) as typeof stream.write;
  stream.on("error", (err) => {
    if (isEpipe(err)) onEpipe();
    else throw err;
  });
}
