import { defineCommand } from "citty";
import { demoAgent } from "../setup/demo-agent.ts";

export default defineCommand({
  meta: { name: "demo-agent", hidden: true },
  run: () => demoAgent(),
});
