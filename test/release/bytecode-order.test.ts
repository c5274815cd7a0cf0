// The start-up profile (scripts/release/bytecode-order.ts) refuses a run that failed: its profile would lay out an error path.
import { expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordBytecodeOrder } from "../../scripts/release/bytecode-order.ts";
import { tempDir } from "../helpers/repo.ts";

test("a profiled command that fails stops the recording, named", () => {
  const failing = join(tempDir(), "wt-loop");
  writeFileSync(failing, "#!/bin/sh\necho 'no loop here' >&2\nexit 1\n");
  chmodSync(failing, 0o755);
  expect(() => recordBytecodeOrder(failing, tempDir())).toThrow(/wt-loop status exited 1: no loop here/);
});
