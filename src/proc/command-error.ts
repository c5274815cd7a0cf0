/** A command wt-loop ran that failed: what proc/spawn.ts throws (apart, so that telling it apart loads no spawning). */
/** How a command's process ended: on its own, by its timeout, or by an abort. */
export type EndReason = "exit" | "timeout" | "aborted";

export class CommandError extends Error {
  override name = "CommandError";
  constructor(
    message: string,
    readonly argv: string[],
    readonly reason: EndReason | "missing" | "no_folder",
    readonly code: number | null = null,
    readonly stderr = "",
  ) {
    super(message);
  }
}
