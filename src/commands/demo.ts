import { defineCommand } from "citty";
import { LoopOptions } from "../setup/options.ts";
import { prepareLoop, writeStarting } from "../setup/prepare.ts";
import { createDemoRepo } from "../setup/demo-repo.ts";
import { action, givenOptions } from "./args/args.ts";
import { runInline } from "../run/launch.ts";
import { basename } from "node:path";
import { isCompiled } from "../proc/self.ts";
import { skipMissingCliWarning } from "../stories/openspec.ts";
import { print, warn } from "../term/print.ts";

export default defineCommand({
  meta: { name: "demo" },
  args: {},
  run: action(async ({ args, rawArgs }) => {
    givenOptions("demo", {}, rawArgs, args);
    skipMissingCliWarning();
    const repo = await createDemoRepo();
    print(`Demo repository: ${repo.path}\n`);
    const opts = LoopOptions.parse({ agent: "demo", change: repo.change, max: 10, iterationTimeout: 2, onComplete: "keep", terminal: "inline" });
    const prepared = await prepareLoop({ path: repo.path, name: basename(repo.path) }, opts, warn);
    const { lock } = await writeStarting(prepared, "here");
    const code = await runInline(prepared.state, prepared.source, lock);
    const self = isCompiled() ? process.execPath : "wt-loop";
    print(
      `\nThe demo repository is ${repo.path}: see its history with \`git -C ${repo.path} log --oneline\`, ` +
        `and the loop with \`cd ${repo.path} && ${self} history\`.`,
    );
    return code;
  }),
});
