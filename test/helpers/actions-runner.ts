/**
 * Runs a composite action's steps the way a GitHub runner does, on this machine: its action.yml read, the
 * `${{ … }}` expressions it uses evaluated (inputs with their defaults, `github.*`, earlier steps' outputs),
 * each `run` executed by `bash --noprofile --norc -eo pipefail` (GitHub's bash) with the step's env, a fresh
 * GITHUB_OUTPUT file per step, GITHUB_PATH lines put before PATH for the later steps, and one step summary
 * file. Only what wt-loop's action.yml uses is evaluated; anything else is an error, not a silent blank.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./repo.ts";

export interface JobContext {
  /** The folder the action is in (`github.action_path`). */
  actionPath: string;
  /** The job's working directory: the checked-out repository. */
  workspace: string;
  /** `with:` of the workflow step. */
  with: Record<string, string>;
  /** The event payload (`github.event`). */
  event: Record<string, unknown>;
  token: string;
  env: Record<string, string>;
}

export interface ActionRun {
  code: number;
  /** The failing step's name, or null when every step passed. */
  failedStep: string | null;
  log: string;
  outputs: Record<string, string>;
  summary: string;
  /** What GITHUB_PATH gathered. */
  path: string[];
}

type Action = {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { name: string; id?: string; shell: string; env?: Record<string, string>; run: string }[] };
};

const lookup = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), value);

function outputsOf(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = line.match(/^([^=<]+)<<(.+)$/);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
  }
  return out;
}

export async function runAction(ctx: JobContext): Promise<ActionRun> {
  const action = Bun.YAML.parse(readFileSync(join(ctx.actionPath, "action.yml"), "utf8")) as Action;
  if (action.runs.using !== "composite") throw new Error(`not a composite action: ${action.runs.using}`);
  const dir = tempDir("runner-");
  const steps: Record<string, Record<string, string>> = {};
  const github = { action_path: ctx.actionPath, action_repository: "", event: ctx.event, token: ctx.token, workspace: ctx.workspace };
  const evaluate = (text: string): string =>
    text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, expr: string) => {
      const [head, ...rest] = expr.split(".");
      if (head === "inputs") {
        const name = rest.join(".");
        if (!(name in action.inputs)) throw new Error(`action.yml uses inputs.${name}, which it does not declare`);
        return ctx.with[name] ?? evaluate(action.inputs[name]!.default ?? "");
      }
      if (head === "github") return String(lookup(github, rest) ?? "");
      if (head === "steps") return (lookup(steps, [rest[0]!, rest[2]!]) as string | undefined) ?? "";
      throw new Error(`the test runner does not evaluate \${{ ${expr} }}`);
    });
  const summaryFile = join(dir, "summary.md");
  const pathFile = join(dir, "path");
  writeFileSync(summaryFile, "");
  writeFileSync(pathFile, "");
  const eventFile = join(dir, "event.json");
  writeFileSync(eventFile, JSON.stringify(ctx.event));
  let log = "";
  let failedStep: string | null = null;
  let code = 0;
  for (const [i, step] of action.runs.steps.entries()) {
    if (step.shell !== "bash") throw new Error(`step ${step.name}: shell ${step.shell}`);
    const script = join(dir, `step-${i}.sh`);
    writeFileSync(script, evaluate(step.run));
    const output = join(dir, `output-${i}`);
    writeFileSync(output, "");
    const added = readFileSync(pathFile, "utf8").split("\n").filter(Boolean).reverse();
    const env: Record<string, string> = {
      ...ctx.env,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(v)])),
      PATH: [...added, ctx.env.PATH].join(":"),
      GITHUB_ACTIONS: "true",
      GITHUB_ACTION_PATH: ctx.actionPath,
      GITHUB_WORKSPACE: ctx.workspace,
      GITHUB_OUTPUT: output,
      GITHUB_PATH: pathFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_EVENT_PATH: eventFile,
      RUNNER_TEMP: join(dir, "temp"),
      RUNNER_OS: process.platform === "darwin" ? "macOS" : "Linux",
      RUNNER_ARCH: process.arch === "arm64" ? "ARM64" : "X64",
    };
    const proc = Bun.spawn(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], { cwd: ctx.workspace, env, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    code = await proc.exited;
    log += `== ${step.name}\n${out}${err}`;
    if (step.id) steps[step.id] = outputsOf(output);
    if (code !== 0) {
      failedStep = step.name;
      break;
    }
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, evaluate(v.value)]));
  return { code, failedStep, log, outputs, summary: readFileSync(summaryFile, "utf8"), path: readFileSync(pathFile, "utf8").split("\n").filter(Boolean) };
}
