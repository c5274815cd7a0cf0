/**
 * `wt-loop completion bash|zsh|fish` prints the shell's script; `wt-loop __complete SHELL -- WORDS…`
 * (hidden, what those scripts run at each Tab) prints the candidates, one a line, `value<TAB>description`
 * for zsh and fish. The candidates, and `__complete` itself (cli.ts runs it apart from the catalog):
 * catalog/complete.ts.
 */
import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { action, givenOptions } from "./args/args.ts";
import { write } from "../term/print.ts";
import { SCRIPTS, type Shell, SHELLS } from "../text/completion-scripts.ts";

const args = {
  shell: { type: "positional", required: false, valueHint: SHELLS.join("|"), description: "The shell: bash, zsh or fish" },
} as const;

export default defineCommand({
  meta: { name: "completion" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("completion", args, rawArgs, a);
    const shell = a.shell as Shell | undefined;
    if (!shell) throw new UserError(`Name the shell: wt-loop completion ${SHELLS.join("|")}. Then, for bash: source <(wt-loop completion bash)`);
    if (!SHELLS.includes(shell)) throw new UserError(`wt-loop completion takes ${SHELLS.join(", ")}, got '${shell}'.`);
    write(SCRIPTS[shell]);
  }),
});
