/**
 * Keys in `run` (docs/how-it-works.md): `q` and Ctrl-C (which raw mode delivers as a byte, not as SIGINT) ask the
 * loop to stop. Raw mode is restored however `run` ends, even on process.exit.
 */
export function listenKeys(onStop: (key: string) => void, stdin: NodeJS.ReadStream = process.stdin): { dispose(): void } {
  if (!stdin.isTTY) return { dispose() {} };
  const restore = () => {
    try {
      stdin.setRawMode(false);
    } catch {
      // the terminal is gone
    }
  };
  const onData = (buf: Buffer) => {
    for (const ch of buf.toString("utf8")) {
      if (ch === "q" || ch === "Q") onStop("q");
      else if (ch === "\x03") onStop("Ctrl-C");
    }
  };
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.resume();
  process.on("exit", restore);
  return {
    dispose() {
      stdin.off("data", onData);
      restore();
      stdin.pause();
      process.off("exit", restore);
    },
  };
}
