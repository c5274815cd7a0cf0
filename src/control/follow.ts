/**
 * Following the event log live (`monitor`): new lines are read as soon as the file changes
 * (fs.watch), with a short poll as the fallback where the folder cannot be watched, and a slow one
 * (once a second) where it is, for a watch that misses (network disks, WSL): a silent loop is then not
 * looked at 10 times a second (idle CPU, docs/performance.md).
 */
import { statSync, watch, type FSWatcher } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";

const POLL_MS = 100;
const WATCHED_POLL_MS = 1000;

export interface Follower {
  stop(): void;
  done: Promise<void>;
}

/** Calls `onLine` for every complete line of `path` from byte `from`, until `stop()`. */
export function followLines(path: string, from: number, onLine: (line: string) => void): Follower {
  let offset = from;
  let rest = "";
  let stopped = false;
  let reading = false;
  let again = false;
  let wake: () => void = () => {};
  const decoder = new TextDecoder();

  const readNew = async () => {
    if (reading) return void (again = true);
    reading = true;
    try {
      do {
        again = false;
        // Asked at once, not on the runtime's file threads: a look that finds nothing new (each second
        // of a silent loop) then wakes no other thread (idle CPU, docs/performance.md).
        const size = sizeOf(path);
        if (size < offset) [offset, rest] = [0, ""]; // the log was replaced: start over
        if (size <= offset) continue;
        const fh = await open(path, "r");
        try {
          const buf = new Uint8Array(size - offset);
          const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
          offset += bytesRead;
          const text = rest + decoder.decode(buf.subarray(0, bytesRead), { stream: true });
          const lines = text.split("\n");
          rest = lines.pop() ?? "";
          for (const l of lines) if (l.trim() && !stopped) onLine(l);
        } finally {
          await fh.close();
        }
      } while (again && !stopped);
    } finally {
      reading = false;
    }
  };

  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dirname(path), () => void readNew().then(() => wake()));
  } catch {
    // no watcher: the poll below does the work
  }
  const done = (async () => {
    while (!stopped) {
      await readNew();
      await new Promise<void>((r) => {
        const t = setTimeout(r, watcher ? WATCHED_POLL_MS : POLL_MS);
        wake = () => {
          clearTimeout(t); // a watched folder wakes it often: no timer is left behind each time
          r();
        };
      });
    }
  })();
  return {
    stop() {
      stopped = true;
      watcher?.close();
      wake();
    },
    done,
  };
}

/** The file's size, or -1 when it cannot be looked at. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}
