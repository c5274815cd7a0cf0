// A story that names its agent (agents/story-agent.ts): which agent runs it, and why one cannot.
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { otherAgents, storyAgent, storyAgentProblem, storyAgentsProblem } from "../../src/agents/story-agent.ts";
import { isComplete, parseStories } from "../../src/stories/story.ts";
import { tempDir } from "../helpers/repo.ts";

const claudeLoop = { agent: "claude" as const, agent_cmd: null };
const story = (heading: string, done = false) => parseStories(`## ${heading}\n- [${done ? "x" : " "}] a\n`)[0]!;

/** A folder holding empty programs of these names, as PATH. */
function pathWith(...names: string[]): string {
  const dir = tempDir("path-");
  for (const n of names) {
    writeFileSync(join(dir, n), "#!/bin/sh\n");
    chmodSync(join(dir, n), 0o755);
  }
  return dir;
}

describe("storyAgent", () => {
  test("the heading's agent (any case) when another than the loop's; the loop's, with its command, otherwise", () => {
    expect(storyAgent(claudeLoop, { agent: "Codex" })).toEqual({ name: "codex", cmd: null, other: true });
    expect(storyAgent(claudeLoop, {})).toEqual({ name: "claude", cmd: null, other: false });
    expect(storyAgent({ agent: "command", agent_cmd: "./a.sh" }, { agent: "command" })).toEqual({ name: "command", cmd: "./a.sh", other: false });
    expect(storyAgent(claudeLoop, { agent: "claude" }).other).toBe(false);
  });

  test("otherAgents: each agent the stories name besides the loop's, once", () => {
    expect(otherAgents(claudeLoop, [{ agent: "codex" }, {}, { agent: "CODEX" }, { agent: "gemini" }, { agent: "claude" }, { agent: "nope" }])).toEqual([
      "codex",
      "gemini",
    ]);
  });
});

describe("storyAgentProblem", () => {
  const installed = pathWith("codex", "gemini");

  test("a known, installed agent, or the loop's own, is no problem", () => {
    expect(storyAgentProblem(claudeLoop, story("2. Port (agent: codex)"), installed, true)).toBeNull();
    expect(storyAgentProblem(claudeLoop, story("2. Port (agent: claude)"), "", true)).toBeNull();
    expect(storyAgentProblem({ agent: "command", agent_cmd: "x" }, story("2. Port (agent: command)"), "", true)).toBeNull();
  });

  test("an unknown name: refused naming the heading, whether or not the story has work left", () => {
    for (const left of [true, false])
      expect(storyAgentProblem(claudeLoop, story("2. Port (agent: cursor)"), installed, left)).toBe(
        "`## 2. Port (agent: cursor)` names the agent 'cursor', which wt-loop does not know (the agents are claude, codex, gemini). Fix the name, or take the (agent: …) out.",
      );
  });

  test("command in a loop of another agent: its program is the loop's --agent-cmd, so it cannot be named", () => {
    expect(storyAgentProblem(claudeLoop, story("2. Port (agent: command)"), installed, true)).toContain(
      "names the command agent, whose program is --agent-cmd",
    );
  });

  test("a CLI not on PATH: refused with how to install it, for a story with work left only", () => {
    const none = pathWith();
    expect(storyAgentProblem(claudeLoop, story("2. Port (agent: gemini) (model: pro)"), none, true)).toBe(
      "`## 2. Port (model: pro) (agent: gemini)` runs its attempts with gemini, whose CLI 'gemini' is not installed (not found on PATH). " +
        "Install it (npm install -g @google/gemini-cli), or take the (agent: …) out.",
    );
    expect(storyAgentProblem(claudeLoop, story("2. Port (agent: gemini)", true), none, false)).toBeNull();
  });

  test("storyAgentsProblem: the first story's problem, complete stories' CLIs not asked for", () => {
    const stories = [story("1. Done (agent: gemini)", true), story("2. Left (agent: codex)"), story("3. Also (agent: nope)")];
    expect(storyAgentsProblem(claudeLoop, stories, pathWith("codex"), isComplete)).toContain("`## 3. Also (agent: nope)` names the agent 'nope'");
    expect(storyAgentsProblem(claudeLoop, stories.slice(0, 2), pathWith("codex"), isComplete)).toBeNull();
  });
});
