// Who audits under --audit, and the auditor's flag mistakes (issue 34 part 1).
import { expect, test } from "bun:test";
import { auditFlagMistake, auditorOf } from "../../src/agents/auditor.ts";
import { UserError } from "../../src/errors.ts";
import { LoopOptions } from "../../src/setup/options.ts";
import { makePlan } from "../../src/setup/plan.ts";
import { refuseOptionMistakes } from "../../src/setup/option-mistakes.ts";
import { makeRepo } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

test("the auditor: --audit-agent, else the --review agent as it reviews, else the loop's agent; --audit-model over any", () => {
  const base = sampleState({ agent: "command", agent_cmd: "./agent.sh", model: "m-agent" });
  expect(auditorOf(base)).toEqual({ name: "command", cmd: "./agent.sh", model: "m-agent" });
  const reviewed = { ...base, review: "codex" as const, review_model: "m-review" };
  expect(auditorOf(reviewed)).toEqual({ name: "codex", cmd: null, model: "m-review" });
  expect(auditorOf({ ...reviewed, audit_agent: "gemini" as const })).toEqual({ name: "gemini", cmd: null, model: null });
  expect(auditorOf({ ...reviewed, audit_agent: "command" as const, audit_cmd: "./audit.sh", audit_model: "m-audit" })).toEqual({
    name: "command",
    cmd: "./audit.sh",
    model: "m-audit",
  });
  expect(auditorOf({ ...base, audit_model: "m-audit" }).model).toBe("m-audit");
});

test.each([
  [{ auditAgent: "codex" }, "--audit-agent is only used with --audit"],
  [{ auditModel: "opus" }, "--audit-model is only used with --audit"],
  [{ audit: true, auditAgent: "command" }, "--audit-agent command needs --audit-cmd CMD"],
  [{ audit: true, auditAgent: "codex", auditCmd: "x" }, "--audit-cmd is only used with --audit-agent command"],
  [{ audit: true, auditCmd: "x" }, "--audit-cmd is only used with --audit-agent command"],
])("%j is refused before anything runs", (given, said) => {
  expect(auditFlagMistake(given as never)).toContain(said);
  expect(() => refuseOptionMistakes(LoopOptions.parse({ agent: "claude", ...given }))).toThrow(said);
});

test("--audit needs a tasks file: with --done manual its gaps would have nowhere to go", async () => {
  const repo = makeRepo({ "README.md": "# r\n" });
  const os = { cwd: repo, timeoutMs: 30_000, warn: () => {} };
  const err = await makePlan(repo, LoopOptions.parse({ task: "do it", audit: true }), os).catch((e) => e);
  expect(err).toBeInstanceOf(UserError);
  expect(err.message).toContain("--audit needs a tasks file");
  expect((await makePlan(repo, LoopOptions.parse({ task: "do it" }), os)).doneCriteria).toBe("manual");
});
