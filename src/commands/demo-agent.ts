import { defineCommand } from "citty";
import { demoAgent } from "../demo/agent.ts";

export default defineCommand({
  meta: { name: "demo-agent", description: "The demo's scripted agent (used by `wt-loop demo`)", hidden: true },
  run: () => demoAgent(),
});
