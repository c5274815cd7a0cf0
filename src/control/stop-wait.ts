/**
 * How long `wt-loop stop` (and `s` on monitor's screen) waits for a graceful stop unless told (`--wait`). A module
 * of its own: the catalog (`--help`, read at every start) states it without loading the stop's code.
 */
export const STOP_WAIT_SEC = 60;
