// A user runs a loop from an issue with --issue-sync: the boxes of accepted stories are ticked in the issue
// (nothing else of its text changes), one comment with the receipt is written at the end, and a second run of
// the same loop edits that comment instead of adding one. The real `gh` against a scripted GitHub on 127.0.0.1.
import { afterAll, expect, test } from "bun:test";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer } from "../helpers/github-server.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

const BODY = "Please:\r\n\r\n- [ ] Route\r\n- [ ] Form\r\n\r\n```\r\n- [ ] Route\r\n```\r\n";
const gh = startGitHubServer({ issues: [{ number: 7, title: "Login", body: BODY }] });
afterAll(() => gh.stop());

test("boxes ticked as stories are accepted, one comment, edited by the next run", async () => {
  const repo = makeRepo();
  const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
  const env = { ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, ...agent.env };
  const first = await wtLoop(["start", "--issue", "7", "--issue-sync", "--max", "1", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env });
  expect(first.code).toBe(2); // --max 1: stuck after story 1
  expect(gh.issues.get(7)!.body).toBe(BODY.replace("- [ ] Route\r\n- [ ] Form", "- [x] Route\r\n- [ ] Form"));
  expect(gh.comments).toHaveLength(1);
  expect(gh.comments[0]!.body).toContain("**wt-loop** ended **stuck**: 1/2 stories");
  const second = await wtLoop(["start", "--max", "5", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env });
  expect(second.code).toBe(0);
  expect(readState(repo).issue_sync).toBe(true);
  expect(gh.issues.get(7)!.body).toBe(BODY.replace("- [ ] Route\r\n- [ ] Form", "- [x] Route\r\n- [x] Form"));
  expect(gh.comments).toHaveLength(1);
  expect(gh.comments[0]!.body).toContain("**wt-loop** ended **done**: 2/2 stories");
  expect(gh.comments[0]!.body).toContain("| 2. Form | ✅ accepted | 1 |");
  for (const r of gh.requests) expect(r.body).not.toContain("test-token");
});

test("--issue-sync without an issue is refused", async () => {
  const r = await wtLoop(["start", "x", "--issue-sync", "--dry-run"], { cwd: makeRepo(), env: gh.env() });
  expect(r.stderr).toContain("--issue-sync writes progress back to the issue the stories came from: give --issue N");
  expect(r.code).toBe(1);
});
