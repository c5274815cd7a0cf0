/**
 * The runner's side of steering (docs/steering.md): requests arrive as files in `.claude/loop-requests/`
 * (`<id>.req.json`, written whole by control/steer.ts), and the runner alone applies them to its state,
 * saves it, and answers (`<id>.answer.json`). No signal is sent and no other process writes the state,
 * so two requests at once are two files applied one after the other, and a request the runner never
 * took is withdrawn by its sender (it renames a request before applying it: whoever moves the file
 * first decides). A file that does not name this run — committed by a repository, left by an earlier
 * run — is never applied, nor touched.
 */
import { closeSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Wake } from "../proc/wake.ts";
import { errorMessage } from "../errors.ts";
import { loopRoot, openSafe, refuseLinks, renameSafe, writeFileSafe } from "../proc/safe-fs.ts";
import type { State } from "../state/schema.ts";
import type { LoopDeps } from "./ports.ts";
import { applySteer, parseRequest, type SteerAnswer } from "../record/steer-apply.ts";
import { windowTitle } from "../text/window-title.ts";

/** Often enough that `wt-loop pause` answers at once when the folder cannot be watched. */
const POLL_MS = 250;
/**
 * While the folder is watched (a request's file wakes the inbox at once, proc/wake.ts), the look that
 * covers a watch that misses: 4 looks a second were most of what a silent loop did (docs/performance.md).
 */
const WATCHED_POLL_MS = 2000;
export const REQUEST_SUFFIX = ".req.json";
export const TAKEN_SUFFIX = ".taken";
export const ANSWER_SUFFIX = ".answer.json";

export interface Inbox {
  /** Applies every request waiting now (one check at a time). */
  check(): Promise<void>;
  /** Stops looking for requests; waits for a check under way. Requests left are withdrawn by their senders. */
  close(): Promise<void>;
}

type Deps = Pick<LoopDeps, "paths" | "store">;

export function steerInbox(state: State, deps: Deps): Inbox {
  const dir = deps.paths.requests;
  const root = loopRoot(dir);
  const ignored = new Set<string>();
  const failures = new Set<string>();
  let running: Promise<void> | null = null;

  const checkOnce = async () => {
    refuseLinks(root, dir); // a planted link would have readdir list, and us answer into, a folder the repository chose
    let names: string[];
    try {
      names = readdirSync(dir)
        .filter((n) => n.endsWith(REQUEST_SUFFIX) && !ignored.has(n))
        .sort();
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return;
      throw err;
    }
    const answered: { id: string; answer: SteerAnswer }[] = [];
    for (const name of names) {
      const path = join(dir, name);
      const req = readRequest(root, path);
      if (req === undefined) continue; // withdrawn meanwhile
      if (req === null || req.run !== state.started_at) {
        ignored.add(name);
        deps.store.emit({
          type: "Error",
          message:
            `Ignored ${path}: it is not a request wt-loop made for this run (a file the repository holds, or one an earlier run left). ` +
            `It was left as it is.`,
        });
        continue;
      }
      const id = name.slice(0, -REQUEST_SUFFIX.length);
      try {
        renameSafe(root, path, join(dir, id + TAKEN_SUFFIX));
      } catch {
        continue; // its sender withdrew it first: it is not applied
      }
      const { events, ...answer } = applySteer(state, req);
      for (const e of events) deps.store.emit(e);
      answered.push({ id, answer });
    }
    if (!answered.length) return;
    await deps.store.save(); // before any answer: whoever reads the state after its answer sees the change
    for (const { id, answer } of answered) {
      writeFileSafe(root, join(dir, id + ANSWER_SUFFIX), JSON.stringify(answer) + "\n");
      rmSync(join(dir, id + TAKEN_SUFFIX), { force: true });
    }
  };

  const check = () => {
    running ??= checkOnce()
      .catch((err) => {
        // The loop goes on without steering rather than ending on it; said once per kind of failure.
        const message = `wt-loop could not read its requests in ${dir}: ${errorMessage(err)}`;
        if (!failures.has(message)) deps.store.emit({ type: "Error", message });
        failures.add(message);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  // The requests folder is made by the first request: its parent is watched for it, then it.
  const wake = new Wake({ only: (name) => name === basename(dir) || name.endsWith(REQUEST_SUFFIX), keepAlive: false });
  const watch = () => {
    wake.watch(dirname(dir));
    if (existsSync(dir)) wake.watch(dir);
  };
  let closed = false;
  const loop = (async () => {
    for (let first = true; !closed; first = false) {
      const before = wake.watched;
      watch();
      // The folder just made: a request written before its watch began is looked for now.
      if (!first && wake.watched > before) wake.poke();
      await wake.wait(wake.watching && !first ? WATCHED_POLL_MS : POLL_MS);
      if (!closed) await check();
    }
  })();
  return {
    check,
    async close() {
      closed = true;
      wake.close();
      await loop;
      await running;
    },
  };
}

/** The request in `path`: undefined when it is gone, null when it is not a request. */
function readRequest(root: string, path: string) {
  let text: string;
  try {
    const fd = openSafe(root, path, "read");
    try {
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    return null; // a link (refused), a folder: not ours
  }
  try {
    return parseRequest(JSON.parse(text));
  } catch {
    return null;
  }
}

/**
 * The loop pauses here, between iterations: `paused` until a resume (or a stop) comes. The agent is
 * not running, so nothing is interrupted; the next iteration starts as if there had been no pause.
 */
export async function pauseHere(state: State, deps: Deps & Pick<LoopDeps, "signal" | "setTitle">, inbox: Inbox): Promise<void> {
  deps.setTitle(windowTitle(state.worktree_name, `paused ${state.current_iteration}/${state.max_iterations}`));
  await deps.store.record({ type: "Paused", iteration: state.current_iteration }, (s) =>
    Object.assign(s, { status: "paused", pause_requested: false, paused_since: new Date().toISOString() }),
  );
  while (state.status === "paused" && !deps.signal.aborted) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, POLL_MS);
      function done() {
        clearTimeout(t);
        deps.signal.removeEventListener("abort", done);
        resolve();
      }
      deps.signal.addEventListener("abort", done, { once: true });
    });
    await inbox.check();
  }
}
