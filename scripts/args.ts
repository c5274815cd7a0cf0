/**
 * Options of the hand-run scripts (the soak, the convergence sweep): `--help` prints `usage`, a mistyped option
 * is named with a pointer to --help (exit 2) instead of parseArgs' stack trace.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

export function scriptArgs<const O extends Options>(options: O, usage: string) {
  try {
    const { values } = parseArgs({ options: { ...options, help: { type: "boolean", short: "h" } }, strict: true });
    if ((values as { help?: boolean }).help) {
      console.log(usage.trim());
      process.exit(0);
    }
    return values as ReturnType<typeof parseArgs<{ options: O }>>["values"];
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err));
  }
}

export function usageError(message: string): never {
  console.error(`${message}\nSee --help.`);
  process.exit(2);
}
