/**
 * A wait that a change on disk ends early. `fs.watch` (inotify, kqueue) wakes it as soon as a watched
 * file or folder changes, so a loop waiting for an agent's output, a request or an event costs nothing
 * while nothing happens; its timeout still ends it, so where watching is not possible, or silently
 * misses (some network disks, WSL), a slow poll does the work. Idle CPU: docs/performance.md.
 */
import { watch, type FSWatcher } from "node:fs";

export class Wake {
  private pending = false;
  private waiter: (() => void) | null = null;
  private timer: Timer | null = null;
  private readonly watchers = new Map<string, FSWatcher>();

  /**
   * `only`: the names of a folder's entries whose changes wake (others are ignored); `keepAlive: false`:
   * a wait does not keep the process alive (a background look, like a timer that is unref'd).
   */
  constructor(private readonly o: { only?: (name: string) => boolean; keepAlive?: boolean } = {}) {}

  /** Watches `path` too (once per path); false when it cannot be watched (missing, no watcher left). */
  watch(path: string): boolean {
    if (this.watchers.has(path)) return true;
    try {
      const w = watch(path, { persistent: false }, (_kind, name) => {
        if (!this.o.only || (typeof name === "string" && this.o.only(name))) this.poke();
      });
      // A watched folder deleted (an agent's `git clean -fdx`): watched again once it is back.
      w.on("error", () => this.unwatch(path));
      this.watchers.set(path, w);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether anything is watched now (the slow poll may be used). */
  get watching(): boolean {
    return this.watchers.size > 0;
  }

  /** How many paths are watched now. */
  get watched(): number {
    return this.watchers.size;
  }

  /** Ends the current wait now, or the next one at once. */
  poke(): void {
    this.pending = true;
    this.waiter?.();
  }

  /** Resolves at the first change since the last wait ended, or after `ms`. */
  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.waiter = null;
        this.pending = false;
        resolve();
      };
      this.waiter = done;
      this.timer = setTimeout(done, ms);
      if (this.o.keepAlive === false) this.timer.unref?.();
    });
  }

  /** Stops watching; a wait under way ends now. */
  close(): void {
    for (const path of [...this.watchers.keys()]) this.unwatch(path);
    this.waiter?.();
  }

  private unwatch(path: string): void {
    try {
      this.watchers.get(path)?.close();
    } catch {
      // already closed
    }
    this.watchers.delete(path);
  }
}
