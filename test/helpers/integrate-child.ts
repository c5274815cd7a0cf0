/**
 * A runner that only integrates one lane (a kill -9 test's victim): `bun integrate-child.ts <repo> <lane json> [verify flag file]`.
 * With a flag file, verify writes it and then waits forever (the test kills it there). Prints the Integration.
 * With INTEGRATE_VERIFY_WRITES=<name>, verify writes that file in the main worktree and passes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { mergeQueue } from "../../src/parallel/merge-queue.ts";

const [repo, lane, flag] = process.argv.slice(2);
// With INTEGRATE_VERIFY_WRITES=<name>, verify writes that file in the main worktree (a report) and passes.
const writes = process.env.INTEGRATE_VERIFY_WRITES;
const verify = flag
  ? async () => {
      writeFileSync(flag, "verifying\n");
      await new Promise(() => {}); // until killed
      return { ok: true } as const;
    }
  : writes
    ? async () => {
        writeFileSync(join(repo!, writes), "a report\n");
        return { ok: true } as const;
      }
    : null;
const r = await mergeQueue(new Git({ cwd: repo!, timeoutMs: 60_000 }), "ralph/x").integrate(JSON.parse(lane!), verify);
console.log(JSON.stringify(r));
