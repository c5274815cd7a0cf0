/**
 * `--parallel`: who may integrate when (docs/parallel.md, "When the schedule causes a conflict"). A story whose
 * integration conflicted with work integrated after its lane was made (or whose --verify failed only on the
 * integrated tree) was hit by the schedule, not by its agent: its next attempt runs *alone* — its lane is made
 * once no integration is under way, and no other lane integrates until it is done — so the head it starts from
 * is the head it is integrated onto, and it cannot be hit the same way again. The other lanes' agents go on
 * working meanwhile; only their integration waits.
 */
export interface LaneTurns {
  /** The story whose attempt runs alone now, if any. */
  readonly alone: string | null;
  /** From now on no other lane integrates until `release(id)`. */
  hold(id: string): void;
  release(id: string): void;
  /** For the lane that runs alone, before it reads its base: until no integration is under way. */
  settled(signal: AbortSignal): Promise<void>;
  /** Before a lane integrates: waits while another story's lane runs alone; the returned function ends the turn. */
  enter(id: string, signal: AbortSignal): Promise<() => void>;
}

export function laneTurns(): LaneTurns {
  let alone: string | null = null;
  let integrating = 0;
  const waiters = new Set<() => void>();
  const wakeAll = () => [...waiters].forEach((w) => w());
  // A stop ends every wait: the lane then goes on as it would have (the queue itself honours the stop).
  async function until(ok: () => boolean, signal: AbortSignal): Promise<void> {
    while (!ok() && !signal.aborted)
      await new Promise<void>((resolve) => {
        const done = () => {
          waiters.delete(done);
          signal.removeEventListener("abort", done);
          resolve();
        };
        waiters.add(done);
        signal.addEventListener("abort", done, { once: true });
      });
  }
  return {
    get alone() {
      return alone;
    },
    hold(id) {
      alone = id;
    },
    release(id) {
      if (alone !== id) return;
      alone = null;
      wakeAll();
    },
    settled: (signal) => until(() => integrating === 0, signal),
    async enter(id, signal) {
      await until(() => alone === null || alone === id, signal);
      integrating++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        integrating--;
        wakeAll();
      };
    },
  };
}
