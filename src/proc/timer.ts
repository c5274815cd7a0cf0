/** The longest delay setTimeout takes (a signed 32-bit count of ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sleeps until `until` (in timer-sized steps: one timer cannot wait 8 hours); false when the signal ends it. */
export function sleepUntil(until: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    let timer: Timer;
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const step = () => {
      const left = until - Date.now();
      if (left <= 0) {
        signal.removeEventListener("abort", onAbort);
        return resolve(true);
      }
      timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    step();
  });
}
