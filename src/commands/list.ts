import { defineCommand } from "citty";
import { listLoops } from "../fleet/loops.ts";
import { renderList } from "../fleet/table.ts";
import { action, givenOptions } from "./args/args.ts";
import { print, printJson } from "../term/print.ts";

const args = { json: { type: "boolean", description: "Print the worktrees and their loops as JSON" } } as const;

export default defineCommand({
  meta: { name: "list" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("list", args, rawArgs, a);
    const entries = await listLoops();
    if (a.json) printJson(entries);
    else print(renderList(entries));
  }),
});
