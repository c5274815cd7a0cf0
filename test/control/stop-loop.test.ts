// The stop protocol as a loop function: what `wt-loop stop` and the MCP server's stop_loop both call.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { stopLoop } from "../../src/control/stop-loop.ts";
import { readState } from "../../src/state/store.ts";
import { expectIntact, hangEnv, ralphStashes, record, userWorkRepo } from "../checkpoint/user-work.ts";
import { runLoop } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";

test("a completion its runner never finished: the stop finishes the cleanup and records it", async () => {
  const repo = userWorkRepo();
  const before = record(repo);
  const flag = join(tempDir("hang-"), "hang.flag");
  const args = ["--checkpoint", "stash", "--max-retries", "1", "--on-complete", "cleanup", "--command-timeout", "2"];
  const r = await runLoop(repo, [{ promise: "FAILED: no", write: { [flag]: "" } }], args, hangEnv(flag, "drop"));
  expect(r.state.completing).toBe("cleanup");
  const path = join(repo, ".claude/loop-state.json");
  const said: string[] = [];
  await stopLoop(path, (await readState(path))!, { force: false, waitSec: 5, answer: "keep" }, (l) => said.push(l));
  expect(said.join("\n")).toContain("Finished the previous loop's interrupted cleanup");
  expect(ralphStashes(repo)).toEqual([]);
  expect(await readState(path)).toMatchObject({ completing: null, completion: "cleanup" });
  expectIntact(repo, before);
}, 60_000);
