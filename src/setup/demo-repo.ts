/** The throwaway repository `wt-loop demo` works on: a tiny project with a two-story OpenSpec change. */
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Git } from "../checkpoint/git.ts";

const CHANGE = "add-greeting";

const FILES: Record<string, string> = {
  "README.md": "# greeter\n\nA tiny project for the wt-loop demo.\n",
  "openspec/config.yaml": "schema: spec-driven\n",
  [`openspec/changes/${CHANGE}/.openspec.yaml`]: "schema: spec-driven\n",
  [`openspec/changes/${CHANGE}/proposal.md`]:
    "# Add a greeting\n\n## Why\nUsers want to be greeted by name.\n\n## What changes\n- a `greet(name)` function\n- a command line that prints the greeting\n",
  [`openspec/changes/${CHANGE}/specs/greeting/spec.md`]:
    "## ADDED Requirements\n\n### Requirement: Greeting\nThe system SHALL greet a person by name.\n\n" +
    '#### Scenario: Greet by name\n- **WHEN** greet is called with "Ada"\n- **THEN** it returns "Hello, Ada!"\n\n' +
    '#### Scenario: Command line\n- **WHEN** `node cli.js Ada` runs\n- **THEN** it prints "Hello, Ada!"\n',
  [`openspec/changes/${CHANGE}/tasks.md`]:
    "# Tasks\n\n## 1. Greeting function\n- [ ] 1.1 Create greet.js exporting greet(name)\n- [ ] 1.2 Add greet.test.js\n\n" +
    "## 2. Command line\n- [ ] 2.1 Create cli.js that prints greet(argv[2])\n- [ ] 2.2 Document the usage in README.md\n",
};

export async function createDemoRepo(): Promise<{ path: string; change: string }> {
  const path = await mkdtemp(join(tmpdir(), "wt-loop-demo-"));
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(path, rel)), { recursive: true });
    await writeFile(join(path, rel), text);
  }
  const git = new Git({ cwd: path, timeoutMs: 30_000 });
  await git.run(["init", "-q", "-b", "main"]);
  await git.commitAll("greeter: initial project with the add-greeting change");
  return { path, change: CHANGE };
}
