// --audit (issue 34 part 1) with the real Claude Code binary as the agent and as the auditor, against the scripted
// local API, on an OpenSpec change read by the real openspec CLI: the plan forgot the Farewell scenario; the audit
// names it, its gap becomes a story the agent implements, the second audit passes. The auditor's model reaches the
// API; status, history and log show the audit apart.
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { makeRepo, openspecFiles, tempDir } from "../helpers/repo.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

const CHANGE = "add-greeting";
const SPEC =
  "## ADDED Requirements\n\n### Requirement: Greeting\nThe tool SHALL greet.\n\n#### Scenario: Hello\n- **WHEN** it starts\n- **THEN** hello.txt says hello\n\n" +
  "### Requirement: Farewell\nThe tool SHALL say goodbye.\n\n#### Scenario: Bye\n- **WHEN** it ends\n- **THEN** bye.txt says bye\n";
const GAP = "write bye.txt saying bye (scenario: Bye)";

const implement = (repo: string, tasks: string, file: string, text: string, open: string): Turn[] => [
  { tool: "Read", input: { file_path: tasks } }, // Claude Code edits only a file it has read
  { tool: "Write", input: { file_path: join(repo, file), content: text } },
  { tool: "Edit", input: { file_path: tasks, old_string: `- [ ] ${open}`, new_string: `- [x] ${open}` } },
  { text: "Done. <promise>COMPLETE</promise>" },
];

test("the audit finds the scenario the tasks forgot; its gap becomes a story, implemented; the second audit passes", async () => {
  const files = openspecFiles(CHANGE, "## 1. Greeting\n- [ ] 1.1 Write hello.txt\n");
  files[`openspec/changes/${CHANGE}/specs/greeting/spec.md`] = SPEC;
  delete files[`openspec/changes/${CHANGE}/specs/thing/spec.md`];
  const repo = makeRepo(files);
  const tasks = join(repo, `openspec/changes/${CHANGE}/tasks.md`);
  server = startModelServer([
    implement(repo, tasks, "hello.txt", "hello\n", "1.1 Write hello.txt"),
    [{ tool: "Bash", input: { command: "ls", description: "look" } }, { text: `Farewell is missing.\n<audit>\nGAP: ${GAP}\n</audit>` }],
    implement(repo, tasks, "bye.txt", "bye\n", `2.1 ${GAP}`),
    [{ text: "Both scenarios hold. <audit>PASS</audit>" }],
  ]);
  const env = { ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath({ openspec: true })}` };
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--audit", "--audit-model", "claude-haiku-4-5"], {
    cwd: repo,
    env,
    timeoutMs: 300_000,
  });
  expect({ code: r.code, out: r.stdout.slice(-2000), err: r.stderr }).toMatchObject({ code: 0 });
  const state = readJson(join(repo, ".claude/loop-state.json"));
  expect(state.status).toBe("done");
  expect(state.iterations.map((i: any) => [i.kind ?? "story", i.story_id, i.outcome])).toEqual([
    ["story", "1", "complete"],
    ["audit", null, "rejected"],
    ["story", "2", "complete"],
    ["audit", null, "complete"],
  ]);
  expect(readFileSync(tasks, "utf8")).toContain(`## 2. Gaps found by the audit (round 1)\n\n- [x] 2.1 ${GAP}\n`);
  expect(readFileSync(join(repo, "bye.txt"), "utf8")).toBe("bye\n");
  // The auditor's prompt: the goal from the change (its requirements and scenarios), then the claim, then the diff.
  const prompts = server.prompts();
  expect(prompts).toHaveLength(4);
  const audit = prompts[1]!;
  for (const said of ["Requirement: Farewell", "**THEN** bye.txt says bye", "Add a thing.", "- [x] 1.1 Write hello.txt", "+hello"])
    expect(audit).toContain(said);
  expect(audit.indexOf("Requirement: Farewell")).toBeLessThan(audit.indexOf("## The implementer's claim"));
  expect(audit.indexOf("## The implementer's claim")).toBeLessThan(audit.indexOf("+hello"));
  expect(prompts[3]).toContain("+bye");
  // --audit-model reaches the API for the auditor's runs only.
  const models = server.requests.filter((b: any) => Array.isArray(b.tools) && b.tools.length).map((b: any) => b.model);
  expect(models.filter((m: string) => m === "claude-haiku-4-5").length).toBeGreaterThanOrEqual(2);
  expect(state.iterations.filter((i: any) => i.kind === "audit").map((i: any) => i.model)).toEqual(["claude-haiku-4-5", "claude-haiku-4-5"]);
  // The receipt keeps the audit apart, with the cost the result lines reported.
  const status = await wtLoop(["status", "--json"], { cwd: repo, env });
  const receipt = JSON.parse(status.stdout).receipt;
  expect(receipt.stories.map((s: any) => s.id)).toEqual(["1", "2"]);
  const auditCost = state.iterations.filter((i: any) => i.kind === "audit").reduce((a: number, i: any) => a + i.cost_usd, 0);
  expect(auditCost).toBeGreaterThan(0);
  expect(receipt.audit).toMatchObject({ rounds: 2, gaps: 1, last: "pass" });
  expect(receipt.audit.cost_usd).toBeCloseTo(auditCost, 9);
  expect((await wtLoop(["status"], { cwd: repo, env })).stdout).toMatch(/Audit: 2 rounds · 1 gap/);
  expect((await wtLoop(["history"], { cwd: repo, env })).stdout).toMatch(/audit +1 +gaps \(1\)/);
  const log = (await wtLoop(["log"], { cwd: repo, env })).stdout;
  expect(log).toContain("━━ audit · round 1");
  expect(log).toContain("audit found 1 gap");
  expect(log).toContain("audit passed");
  expect(r.stdout).toMatch(/Audit: 2 rounds/); // the end box
  expect(
    readEvents(repo)
      .filter((e) => e.type === "AuditEnd")
      .map((e) => e.verdict),
  ).toEqual(["gaps", "pass"]);
}, 300_000);
