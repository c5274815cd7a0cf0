/** A yes/no question on the terminal, answered with a typed line: only "y" or "yes" is yes. */
import { createInterface } from "node:readline";
import { forTerminal } from "./inert.ts";

/** Whether someone is there to answer: both stdin and stdout are a terminal. */
export const canAskHere = () => Boolean(process.stdin.isTTY && process.stdout.isTTY);

/** `question` may name a file of the repository: it is shown inert, like every other write. */
export async function askYes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    // Ctrl-D (the terminal closed) ends the question as a no.
    const answer = await new Promise<string>((resolve) => {
      rl.once("close", () => resolve(""));
      rl.question(`${forTerminal(question)} (y/N) `, resolve);
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
