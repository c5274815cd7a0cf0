import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { changeMaxIterations, setMaxIterations } from "../control/steer.ts";
import { loopPaths } from "../state/paths.ts";
import { print } from "../term/print.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action } from "./args/args.ts";
import { NOT_ASCII_DASH, typographicNumber } from "../text/suggest.ts";

const args = {
  limit: { type: "positional", required: false, description: "+N raises the iteration limit by N, -N lowers it by N, N sets it" },
} as const;

export default defineCommand({
  meta: { name: "max" },
  args,
  run: action(async ({ rawArgs }) => {
    // Read from the raw words: a parser would take `-10` for flags.
    const words = rawArgs.filter((w) => w !== "--");
    const m = words.length === 1 ? /^([+-]?)(\d+)$/.exec(words[0]!) : null;
    const ascii = words.length === 1 ? typographicNumber(words[0]!) : null;
    if (!m && ascii !== null) throw new UserError(`wt-loop max ${words[0]}: ${NOT_ASCII_DASH} Type \`wt-loop max ${ascii}\`.`);
    if (!m) throw new UserError(`\`wt-loop max\` takes one value: +N raises the iteration limit by N, -N lowers it, N sets it (got '${words.join(" ")}').`);
    const paths = loopPaths((await resolveWorktree()).path);
    const n = Number(m[2]);
    print(await (m[1] ? changeMaxIterations(paths, m[1] === "-" ? -n : n) : setMaxIterations(paths, n)));
  }),
});
