/**
 * Any program as the agent (`--agent command --agent-cmd CMD`): CMD runs through `sh -c` so it may
 * carry its own arguments; the prompt goes to stdin; its plain stdout, whole, is the final text.
 */
import { ZERO_TOKENS } from "../state/tokens.ts";
import type { AgentAdapter } from "./adapter.ts";

export const command: AgentAdapter = {
  name: "command",
  plainText: true,
  argv: (call) => ["sh", "-c", call.agentCmd ?? ""],
  parser() {
    const lines: string[] = [];
    return {
      line(line) {
        lines.push(line);
        return [{ type: "Message", text: line }];
      },
      end: (exitCode) => [
        {
          type: "Done",
          final_text: lines.join("\n"),
          turns: null,
          tokens: ZERO_TOKENS,
          cost_usd: null,
          is_error: exitCode !== 0,
          errors: exitCode !== 0 ? [`exited with code ${exitCode}`] : [],
        },
      ],
    };
  },
};
