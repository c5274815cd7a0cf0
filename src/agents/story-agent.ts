/**
 * A story that names its agent (`## 3. Port the parser (agent: codex)`, docs/how-it-works.md "A model per
 * story"): which agent runs its attempts, and why one cannot. A name the loop cannot run is refused at start
 * naming the heading (setup/plan.ts), and ends a loop whose tasks file gained such a heading while it ran
 * (engine/story-turn.ts): an attempt must never run an agent nobody chose.
 */
import type { AgentName, State } from "../state/schema.ts";
import { headingOf, type Story } from "../stories/story.ts";
import { AGENT_INSTALL, adapterFor } from "./registry.ts";

/**
 * The agents a heading may name: the CLIs, and wt-loop's scripted demo. Not `command`: its program is
 * `--agent-cmd`, the loop's, so a heading names it only in a loop whose agent is `command` (then it is the loop's).
 */
const NAMEABLE: readonly AgentName[] = ["claude", "codex", "gemini", "demo"];

type Loop = Pick<State, "agent" | "agent_cmd">;

export interface StoryAgent {
  name: AgentName;
  /** `--agent-cmd`, when the story runs the loop's `command` agent; null for any other. */
  cmd: string | null;
  /** Another agent than the loop's: `--model` and `--escalate` (the loop agent's model names) do not apply to it. */
  other: boolean;
}

/** The name as a heading gave it, compared without case (`(agent: Codex)`). */
const named = (story: Pick<Story, "agent">) => story.agent?.toLowerCase() ?? null;

/** The agent that runs `story`'s attempts: the one its heading names, else the loop's. Only for a story `storyAgentProblem` passed. */
export function storyAgent(loop: Loop, story: Pick<Story, "agent">): StoryAgent {
  const name = named(story);
  if (!name || name === loop.agent) return { name: loop.agent, cmd: loop.agent_cmd, other: false };
  return { name: name as AgentName, cmd: null, other: true };
}

/**
 * Why `story`'s heading names an agent this loop cannot run — an unknown name, `command` in a loop of another
 * agent, a CLI not on PATH (`pathEnv`; only asked of a story with work left) — or null when it can.
 */
export function storyAgentProblem(loop: Loop, story: Story, pathEnv: string | undefined, workLeft: boolean): string | null {
  const name = named(story);
  if (!name || name === loop.agent) return null;
  const heading = `\`${headingOf(story)}\``;
  if (name === "command")
    return (
      `${heading} names the command agent, whose program is --agent-cmd, the loop's: a heading names it only when the loop's agent is command. ` +
      `Name ${NAMEABLE.slice(0, 3).join(", ")} there, or take the (agent: …) out.`
    );
  if (!(NAMEABLE as readonly string[]).includes(name))
    return (
      `${heading} names the agent '${story.agent}', which wt-loop does not know (the agents are ${NAMEABLE.slice(0, 3).join(", ")}). ` +
      "Fix the name, or take the (agent: …) out."
    );
  if (!workLeft) return null;
  const bin = adapterFor(name as AgentName).argv({ prompt: "", model: null, agentCmd: null })[0]!;
  if (Bun.which(bin, { PATH: pathEnv ?? "" })) return null;
  const install = AGENT_INSTALL[name as AgentName];
  return (
    `${heading} runs its attempts with ${name}, whose CLI '${bin}' is not installed (not found on PATH). ` +
    `Install it${install ? ` (${install})` : ""}, or take the (agent: …) out.`
  );
}

/** The first problem of any story (work left: not complete), or null. */
export function storyAgentsProblem(loop: Loop, stories: Story[], pathEnv: string | undefined, isDone: (s: Story) => boolean): string | null {
  for (const s of stories) {
    const problem = storyAgentProblem(loop, s, pathEnv, !isDone(s));
    if (problem) return problem;
  }
  return null;
}

/** The agents other than the loop's that the stories name (for `--sandbox`'s rules, a budget's check). */
export function otherAgents(loop: Loop, stories: Pick<Story, "agent">[]): AgentName[] {
  const names = stories.map((s) => storyAgent(loop, s)).filter((a) => a.other && (NAMEABLE as readonly string[]).includes(a.name));
  return [...new Set(names.map((a) => a.name))];
}
