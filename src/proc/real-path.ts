/** A path with its links resolved, as the kernel reports a process's cwd and exe (both sides of a comparison must be). */
import { realpathSync } from "node:fs";

/** The resolved path, or null when it does not exist (or cannot be read). */
export function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The resolved path, or the path as given when it cannot be resolved (gone meanwhile: compare it as it is). */
export const realOrSame = (path: string): string => realOrNull(path) ?? path;
