import { defineCommand } from "citty";
import { statusLineMain } from "../fleet/statusline.ts";

export default defineCommand({
  meta: { name: "statusline", description: "One short line about this worktree's loop, for Claude Code's statusLine setting (reads its JSON on stdin)" },
  run: statusLineMain,
});
