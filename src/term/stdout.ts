/**
 * A reader that goes away (`wt-loop history | head -1`, `monitor | head`) makes the next write to
 * stdout throw EPIPE. That is the reader's choice, not an error: output ends quietly. A command
 * whose output is all it does then exits 0; the loop runner keeps going (its output is only a view
 * of the loop, which must not die with the view) and writes nothing more. A terminal that went away
 * (its window closed) fails a write with EIO instead: output ends the same way, and the hang-up is
 * reported (term/hangup.ts) — a runner stops, as it does on SIGHUP.
 */
import { reportHangUp } from "./hangup.ts";
let whenClosed: "exit" | "continue" = "exit";
let closed = false;

/** For `run`: a closed stdout only ends the output, never the loop. */
export function keepRunningWhenStdoutCloses(): void {
  whenClosed = "continue";
}

const codeOf = (err: unknown) => (err as { code?: string } | null)?.code;

/** EPIPE: the reader went away. EIO on a terminal: the terminal did. Anything else is a real error. */
function closedBy(err: unknown, stream: NodeJS.WriteStream): boolean {
  const code = codeOf(err);
  if (code === "EIO" && stream.isTTY) reportHangUp("a write to it failed (EIO)");
  return code === "EPIPE" || (code === "EIO" && Boolean(stream.isTTY));
}

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
      if (!closedBy(err, stream)) throw err;
      onEpipe();
      return true;
    }
  }) as typeof stream.write;
  stream.on("error", (err) => {
    if (closedBy(err, stream)) onEpipe();
    else throw err;
  });
}
