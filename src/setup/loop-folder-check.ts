/**
 * doctor's `.claude` line: whether the loop's folder can be used. A module of its own because `run`
 * and `start` ask it first, before the previous run is read from that folder, and `run` opens its
 * screen before the other checks (setup/doctor-checks.ts, which load the agents' adapters and the
 * plan's sources) are loaded (issue 35: the first frame).
 */
import { accessSync, constants, lstatSync } from "node:fs";
import { describeIoError, UserError } from "../errors.ts";
import { loopPaths, refusePlantedLinks } from "../state/paths.ts";
import type { Check, CheckLine, DoctorInput } from "./doctor.ts";

type Found = Omit<CheckLine, "id">;

/** The loop's folder: no planted link on the way to its files, and writable. */
function checkLoopFolder(input: DoctorInput): Found | null {
  if ("error" in input.worktree || input.opts?.dryRun) return null;
  const wt = input.worktree.path;
  const dir = loopPaths(wt).dir;
  try {
    refusePlantedLinks(wt);
  } catch (err) {
    if (err instanceof UserError) return { mark: "fail", text: err.message, fix: null };
    // A file where the folder goes (ENOTDIR) is said below; any other error as it is.
    if ((err as { code?: string }).code !== "ENOTDIR") return { mark: "fail", text: describeIoError(err) ?? String(err), fix: null };
  }
  let isDir: boolean | null = null; // null: not there yet (the loop creates it)
  try {
    isDir = lstatSync(dir).isDirectory();
  } catch {
    // not there
  }
  if (isDir === false)
    return { mark: "fail", text: `${dir} is not a folder: the loop keeps its state and logs there.`, fix: `move it away: mv ${dir} ${dir}.bak` };
  const where = isDir ? dir : wt;
  try {
    accessSync(where, constants.W_OK);
  } catch {
    return { mark: "fail", text: `${where} is not writable: the loop keeps its state and logs in ${dir}.`, fix: `chmod u+w ${where}` };
  }
  return { mark: "ok", text: `${dir} writable`, fix: null };
}

export const LOOP_FOLDER_CHECK: Check = { id: ".claude", run: checkLoopFolder };
