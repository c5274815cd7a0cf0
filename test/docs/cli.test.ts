// docs/cli.md is generated from the command catalog and the options table; this test fails when
// the committed page drifts from the code (fix: `bun run docs` and commit the result).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_FILE, cliText } from "../../scripts/docs-cli.ts";
import { COMMANDS } from "../../src/catalog/catalog.ts";
import { STOP_WAIT_SEC } from "../../src/control/stop-wait.ts";
import { FLAGS } from "../../src/setup/option-table.ts";
import { ROOT } from "../helpers/cli.ts";

describe("the generated command line reference", () => {
  test(`the committed ${CLI_FILE} is what the code generates (run \`bun run docs\` when this fails)`, async () => {
    expect(readFileSync(join(ROOT, CLI_FILE), "utf8")).toBe(await cliText());
  });

  test("every visible command has a section, and every loop option a row with its default", async () => {
    const page = await cliText();
    for (const c of COMMANDS.filter((x) => !x.hidden)) expect(page).toContain(`\n## ${c.name}\n`);
    expect(page).not.toContain("demo-agent");
    for (const o of FLAGS) expect(page).toContain(`| \`--${o.flag}\` |`);
    expect(page).toContain("| `--verify-timeout` | `<min>` | 10 | both files | Limit of one --verify run, in minutes |");
    expect(page).toContain("| `--terminal` | `<auto\\|NAME\\|inline>` | auto | user file only |");
  });

  // The catalog's prose states the stop's default wait from the constant `wt-loop stop` uses, not by hand.
  test("stop's example says the wait its --wait defaults to", async () => {
    expect(await cliText()).toContain(`| \`wt-loop stop\` | stop after the agent is signalled; wait up to ${STOP_WAIT_SEC} s |`);
  });
});
