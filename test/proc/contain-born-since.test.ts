// After every agent run its tag is looked for in the environments of the machine's processes. A process
// that started before the run's command cannot carry the command's own tag, so with `bornSince` only
// the younger ones are read: on a shared machine hundreds of environments fewer per iteration.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findProcesses, RUN_TAG_VAR, startTicks } from "../../src/proc/contain.ts";
import { signalQuietly } from "../../src/proc/signal.ts";
import { tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

test("bornSince: a process with the tag that started before is not looked at; one that started after is found", async () => {
  const d = tempDir();
  const tag = `${d}#bench-${process.pid}`;
  const spawnTagged = async (name: string) => {
    const pidFile = join(d, `${name}.pid`);
    // setsid: out of any group we know, found by its tag alone.
    Bun.spawn(["setsid", "sh", "-c", `echo $$ > ${pidFile}; exec sleep 60`], {
      env: { ...process.env, [RUN_TAG_VAR]: tag },
      stdio: ["ignore", "ignore", "ignore"],
    });
    return waitFor(name, () => Number(readFileSync(pidFile, "utf8")) || null);
  };
  const older = await spawnTagged("older");
  // The clock ticks (10 ms) must move between the two starts for the test to tell them apart.
  const olderStart = startTicks(older)!;
  await waitFor("a later clock tick", () => {
    const probe = Bun.spawnSync(["sh", "-c", "cut -d' ' -f22 /proc/self/stat"]);
    return Number(probe.stdout.toString()) > olderStart || null;
  });
  const younger = await spawnTagged("younger");
  try {
    expect(findProcesses({ tag }).sort()).toEqual([older, younger].sort());
    expect(findProcesses({ tag, bornSince: startTicks(younger) })).toEqual([younger]);
  } finally {
    for (const pid of [older, younger]) signalQuietly(pid, "SIGKILL");
  }
});
