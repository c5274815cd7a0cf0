/**
 * A finished command's pipes are let go of at once. The runtime gives each pipe it reads a 256 KB
 * buffer, freed with the pipe's stream: a stream kept a second longer after every command (the wait
 * for a leftover's last output held the reader) kept ~10 MB alive across the start-up's git
 * commands, and the runtime counts that memory when it decides how much garbage to let pile up.
 */
import { expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { exec } from "../../src/proc/spawn.ts";

const buffers = () => {
  Bun.gc(true);
  Bun.gc(true); // the stream's source is finalized by one collection, its buffer freed by the next
  return heapStats().objectTypeCounts.Uint8Array ?? 0;
};

test("the read buffers of 20 finished commands are freed before the drain wait is over", async () => {
  await exec(["true"], { cwd: "/" }); // whatever the first command loads once
  const before = buffers();
  await Promise.all(Array.from({ length: 20 }, () => exec(["true"], { cwd: "/" })));
  // Each command's stdout and stderr: 40 buffers when kept. A collection that runs late can leave a few.
  expect(buffers() - before).toBeLessThan(10);
});
