/**
 * Runs a composite action's steps the way a GitHub runner does: reads its action.yml, resolves the inputs (given
 * values, else the defaults, whose expressions are evaluated too), evaluates the `${{ }}` expressions of each
 * step's `env` and `run`, runs `run` with the shell the step names (bash as `bash --noprofile --norc -eo pipefail
 * <file>`, in the workspace), gives every step fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, reads its
 * outputs back for the next steps, stops at the first step that fails, and evaluates the action's outputs.
 *
 * Only the expressions a composite action reads are understood (`inputs.<name>`, `steps.<id>.outputs.<name>`,
 * `github.token`, `github.action_path`, and `if: inputs.<name> == '<text>'`); any other expression fails the
 * run, so the action cannot use one the tests do not evaluate. https://docs.github.com/actions/reference/workflows-and-actions/metadata-syntax
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runProcess, type ProcessResult } from "./run-process";

interface InputSpec {
  description: string;
  required?: boolean;
  default?: string;
}
interface Step {
  id?: string;
  name?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  uses?: string;
  if?: string;
}
export interface ActionMetadata {
  name: string;
  description: string;
  author?: string;
  branding?: { icon?: string; color?: string };
  inputs: Record<string, InputSpec>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface StepResult {
  id: string;
  /** null when the step was skipped by its `if:`. */
  code: number | null;
  skipped?: boolean;
  outputs: Record<string, string>;
}

export interface ActionRun {
  /** The action's exit: 0, or the code of the step that failed. */
  code: number | null;
  /** Everything the steps printed on stdout, in order: what the runner reads for workflow commands. */
  stdout: string;
  stderr: string;
  steps: StepResult[];
  outputs: Record<string, string>;
  /** The job summary: the steps' summary files, joined as the runner joins them. */
  summary: string;
  /** Every file the runner gave the steps (outputs, summaries), to search for what must never be written. */
  runnerFiles: string[];
}

export interface RunnerContext {
  /** The folder holding action.yml (GITHUB_ACTION_PATH). */
  actionPath: string;
  workspace: string;
  /** The variables GitHub sets for a job (GITHUB_*, RUNNER_TEMP, CI); PATH and HOME are added. */
  env: Record<string, string>;
  /** `github.token`: the job's token. */
  token: string;
}

export function readActionMetadata(actionPath: string): ActionMetadata {
  return parse(readFileSync(join(actionPath, "action.yml"), "utf8")) as ActionMetadata;
}

type Context = {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
  github: Record<string, string>;
};

function evaluate(text: string, context: Context): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_whole, expression: string) => {
    const parts = expression.split(".");
    if (parts[0] === "inputs" && parts.length === 2) return context.inputs[parts[1]!] ?? "";
    if (parts[0] === "steps" && parts.length === 4 && parts[2] === "outputs")
      return context.steps[parts[1]!]?.outputs[parts[3]!] ?? "";
    if (parts[0] === "github" && parts.length === 2 && parts[1]! in context.github) return context.github[parts[1]!]!;
    throw new Error(`action.yml uses the expression \${{ ${expression} }}, which this runner does not evaluate`);
  });
}

/**
 * A step's `if:`, in the one form a composite action here uses: `inputs.<name> == '<text>'`, compared without
 * regard to case as GitHub compares strings. (With no status function, `success()` is implied: a step runs
 * only while no earlier one failed, which the loop below already ensures.)
 */
function condition(text: string, context: Context): boolean {
  const match = /^\s*inputs\.([\w-]+)\s*==\s*'([^']*)'\s*$/.exec(text.replace(/^\$\{\{([\s\S]*)\}\}$/, "$1"));
  if (!match) throw new Error(`action.yml has the condition "${text}", which this runner does not evaluate`);
  return (context.inputs[match[1]!] ?? "").toLowerCase() === match[2]!.toLowerCase();
}

/** The runner's GITHUB_OUTPUT format: `name=value` lines, or `name<<DELIMITER` ... `DELIMITER` blocks. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`GITHUB_OUTPUT: no closing ${heredoc[2]} for ${heredoc[1]}`);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const index = line.indexOf("=");
    if (index < 0) throw new Error(`GITHUB_OUTPUT: the line "${line}" is neither name=value nor name<<delimiter`);
    outputs[line.slice(0, index)] = line.slice(index + 1);
  }
  return outputs;
}

/** The command line a runner uses for each `shell:` value (GitHub's documented defaults for Linux). */
function shellCommand(shell: string, file: string): [string, string[]] {
  if (shell === "bash") return ["bash", ["--noprofile", "--norc", "-eo", "pipefail", file]];
  if (shell === "sh") return ["sh", ["-e", file]];
  throw new Error(`the step's shell "${shell}" is not one this runner runs`);
}

function runScript(
  shell: string,
  script: string,
  env: Record<string, string>,
  cwd: string,
  dir: string,
): Promise<ProcessResult> {
  const file = join(dir, `step-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  const [command, args] = shellCommand(shell, file);
  return runProcess(command, args, { env, cwd });
}

/** The folders runCompositeAction() made for the steps' files, kept until removeRunnerFolders(). */
const runnerFolders = new Set<string>();

/**
 * Removes the folders of every run so far. A test file calls it when it is done: until then it may still read a
 * run's files (`runnerFiles`).
 */
export function removeRunnerFolders(): void {
  for (const folder of runnerFolders) rmSync(folder, { recursive: true, force: true });
  runnerFolders.clear();
}

export async function runCompositeAction(runner: RunnerContext, given: Record<string, string>): Promise<ActionRun> {
  const action = readActionMetadata(runner.actionPath);
  if (action.runs.using !== "composite") throw new Error(`not a composite action: runs.using is ${action.runs.using}`);
  for (const name of Object.keys(given))
    if (!(name in action.inputs)) throw new Error(`the action has no input "${name}"`);
  const context: Context = { inputs: {}, steps: {}, github: { token: runner.token, action_path: runner.actionPath } };
  for (const [name, spec] of Object.entries(action.inputs))
    context.inputs[name] = given[name] ?? evaluate(spec.default ?? "", context);

  const dir = mkdtempSync(join(tmpdir(), "arbiter-runner-"));
  runnerFolders.add(dir);
  const result: ActionRun = { code: 0, stdout: "", stderr: "", steps: [], outputs: {}, summary: "", runnerFiles: [] };
  for (const [index, step] of action.runs.steps.entries()) {
    if (step.uses) throw new Error(`step ${index + 1}: this runner runs only run: steps`);
    const id = step.id ?? `__step${index}`;
    if (step.if !== undefined && !condition(step.if, context)) {
      context.steps[id] = { outputs: {} };
      result.steps.push({ id, code: null, skipped: true, outputs: {} });
      continue;
    }
    if (!step.shell || step.run === undefined)
      throw new Error(`step ${index + 1}: a composite run step needs shell and run`);
    const outputFile = join(dir, `output-${index}`);
    const summaryFile = join(dir, `summary-${index}`);
    writeFileSync(outputFile, "");
    writeFileSync(summaryFile, "");
    result.runnerFiles.push(outputFile, summaryFile);
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, evaluate(String(value), context)]),
    );
    const env = {
      ...runner.env,
      GITHUB_ACTION_PATH: runner.actionPath,
      GITHUB_WORKSPACE: runner.workspace,
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...stepEnv,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
    };
    const run = await runScript(step.shell, evaluate(step.run, context), env, runner.workspace, dir);
    result.stdout += run.stdout;
    result.stderr += run.stderr;
    const outputs = parseOutputFile(readFileSync(outputFile, "utf8"));
    context.steps[id] = { outputs };
    result.steps.push({ id, code: run.code, outputs });
    const summary = readFileSync(summaryFile, "utf8");
    if (summary) result.summary += (result.summary ? "\n" : "") + summary;
    if (run.code !== 0) {
      result.code = run.code;
      break;
    }
  }
  for (const [name, output] of Object.entries(action.outputs ?? {}))
    result.outputs[name] = evaluate(output.value, context);
  return result;
}
