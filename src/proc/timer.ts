/** The longest delay setTimeout takes (a signed 32-bit count of ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
