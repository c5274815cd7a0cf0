/**
 * The demo's scripted agent (`wt-loop demo-agent`, run by the loop like any agent CLI): it reads the
 * prompt on stdin, does the story's work in the worktree for real (files, ticked boxes, learnings),
 * and prints Claude-shaped stream-json. Its first attempt at story 2 reports FAILED, to show a retry.
 */
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const WORK: Record<string, Record<string, string>> = {
  "1": {
    "greet.js": "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n",
    "greet.test.js": 'import { greet } from "./greet.js";\nif (greet("Ada") !== "Hello, Ada!") throw new Error("greet failed");\nconsole.log("ok");\n',
  },
  "2": {
    "cli.js": 'import { greet } from "./greet.js";\nconsole.log(greet(process.argv[2] ?? "world"));\n',
  },
};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (o: object) => process.stdout.write(JSON.stringify(o) + "\n");
const assistant = (content: object[]) => say({ type: "assistant", message: { role: "assistant", content } });

export async function demoAgent(): Promise<void> {
  const prompt = await Bun.stdin.text();
  const cwd = process.cwd();
  const story = /## Your story: (\S+?)\. (.+?) \(story/.exec(prompt);
  const tasksFile = /Its tasks, from (\S+):/.exec(prompt)?.[1];
  const learnings = /Notes shared between stories are in (\S+?)\. /.exec(prompt)?.[1];
  say({ type: "system", subtype: "init", cwd, model: "wt-loop-demo", tools: ["Write", "Edit", "Bash"] });
  const tokens = Math.ceil(prompt.length / 4);
  const finish = async (text: string, turns: number) => {
    assistant([{ type: "text", text }]);
    // No total_cost_usd: the demo costs nothing, and says so the way agents without a cost do ("-").
    say({
      type: "result",
      subtype: "success",
      is_error: false,
      num_turns: turns,
      result: text,
      usage: { input_tokens: tokens, output_tokens: 120 * turns, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
  };
  if (!story || !tasksFile) return finish("<promise>FAILED: the demo agent only knows the demo's stories</promise>", 1);
  const [, id, title] = story;
  await pause(300);
  assistant([{ type: "text", text: `Working on story ${id}: ${title}.` }]);

  if (id === "2" && !prompt.includes("## Previous attempt failed")) {
    assistant([
      { type: "text", text: "(Demo: this first attempt at story 2 fails on purpose, to show how wt-loop reverts the attempt and retries with the reason.)" },
    ]);
    await pause(300);
    assistant([{ type: "tool_use", id: "t0", name: "Bash", input: { command: "node cli.js Ada" } }]);
    await pause(300);
    return finish(
      "The README has no usage section yet, so I cannot document the CLI against it.\n<promise>FAILED: README.md has no Usage section to extend</promise>",
      2,
    );
  }
  let turns = 1;
  for (const [file, text] of Object.entries(WORK[id!] ?? {})) {
    await pause(300);
    assistant([{ type: "tool_use", id: `t${turns}`, name: "Write", input: { file_path: join(cwd, file), content: text } }]);
    await writeFile(join(cwd, file), text);
    turns++;
  }
  if (id === "2") await appendFile(join(cwd, "README.md"), "\n## Usage\n\n    node cli.js Ada   # prints Hello, Ada!\n");
  const path = join(cwd, tasksFile!);
  const md = await readFile(path, "utf8");
  const section = new RegExp(`(## ${id}\\.[^\\n]*\\n)([\\s\\S]*?)(?=\\n## |$)`);
  await writeFile(
    path,
    md.replace(section, (_, head: string, body: string) => head + body.replace(/- \[ \]/g, "- [x]")),
  );
  await pause(300);
  assistant([{ type: "tool_use", id: `t${turns++}`, name: "Edit", input: { file_path: path, old_string: "- [ ]", new_string: "- [x]" } }]);
  if (learnings) await appendFile(learnings, `- Story ${id} (${title}): files are ES modules; run them with node.\n`);
  await pause(300);
  await finish(`Story ${id} is done and its boxes are ticked.\n<promise>COMPLETE</promise>`, turns);
}
