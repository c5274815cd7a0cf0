import { defineCommand } from "citty";
import { demoAgent } from "../demo/agent.ts";

export default defineCommand({
  meta: { name: "demo-agent", hidden: true },
  run: () => demoAgent(),
});
