import { defineCommand } from "citty";
import { statusLineMain } from "../fleet/statusline.ts";

export default defineCommand({
  meta: { name: "statusline" },
  run: statusLineMain,
});
