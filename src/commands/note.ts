import { defineCommand } from "citty";
import { addNote } from "../control/steer.ts";
import { loopPaths } from "../state/paths.ts";
import { print } from "../term/print.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";

const args = { text: { type: "positional", required: false, description: "The note (quote it; the words after `note` are joined otherwise)" } } as const;

export default defineCommand({
  meta: { name: "note" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    // Every word is the note: `wt-loop note use the v2 API` means what it says, quoted or not.
    const words = (a._ as string[] | undefined) ?? [];
    givenOptions("note", args, rawArgs, { ...a, _: words.slice(0, 1) });
    print(await addNote(loopPaths((await resolveWorktree()).path), words.join(" ")));
  }),
});
