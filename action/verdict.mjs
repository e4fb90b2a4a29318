// The action's first step: mask the key, check the inputs, run the CLI (its workflow commands annotate the
// document's lines), then publish what the verdict says as step outputs, the job summary and the files for code
// scanning and the pull-request comment. A verdict, approved or not, ends this step with 0: whether the job fails
// is the threshold step's decision, after the comment is written.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPOSITORY_CLI, runCli, servedCli } from "./cli.mjs";
import { input, verdictInputs } from "./inputs.mjs";
import { plural } from "../bin/cli/text.mjs";
import { ActionFailure, appendSummary, info, main, mask, setOutput } from "./workflow.mjs";

const CLI_PREFIX = /^arbiter: could not verify: /;

/** Modes whose route records the build's commit, branch and run (the others would ignore them). */
const RECORDS_BUILD = new Set(["snapshot", "exchanges"]);

function cliArguments(inputs, files) {
  const args = [
    inputs.mode,
    inputs.document,
    "--project",
    inputs.project,
    "--format",
    "github",
    "--out-json",
    files.json,
    "--out-sarif",
    files.sarif,
    "--out-markdown",
    files.markdown,
  ];
  if (RECORDS_BUILD.has(inputs.mode)) {
    if (inputs.commit) args.push("--commit", inputs.commit);
    if (inputs.branch) args.push("--branch", inputs.branch);
    if (inputs.runUrl) args.push("--run-url", inputs.runUrl);
  }
  if (inputs.artifact) args.push("--artifact", inputs.artifact);
  if (inputs.mode === "contract" && inputs.label) args.push("--label", inputs.label);
  if (inputs.mode === "contract" && inputs.create) args.push("--create");
  return args;
}

/** The CLI's environment: the runner's (GitHub's variables give the build's defaults), the inputs left out. */
function cliEnvironment(inputs) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("INPUT_") && !name.startsWith("ARBITER_")),
  );
  return { ...env, ARBITER_URL: inputs.server, ARBITER_TOKEN: inputs.key, ARBITER_PROJECT: inputs.project };
}

/** The CLI's "could not verify" message, with the action input that fixes it where the CLI names its own flag. */
function unverified(stderr) {
  const message = stderr.trim().replace(CLI_PREFIX, "") || "the CLI gave no reason.";
  const hints = [];
  const status = /^Arbiter (?:refused the \w+ \((\d{3})\)|answered (\d{3}) )/.exec(message)?.slice(1).find(Boolean);
  if (status === "401") hints.push("The key is the `ci-key` input: store a current CI key in the secret it reads.");
  if (status === "403")
    hints.push(
      "The key is the `ci-key` input: a CI key's scopes and projects are chosen when it is created (console: CI keys).",
    );
  if (/--create\b/.test(message)) hints.push("In this action that is the input `create: true`.");
  if (/^Cannot reach Arbiter at /.test(message))
    hints.push("Check the `server` input and that this runner can reach it.");
  return new ActionFailure([message, ...hints].join(" "));
}

/** Counts by severity, from the summary (which counts every violation) or else the listed violations. */
function counts(verdict) {
  const found = { error: 0, warning: 0, info: 0 };
  if (Array.isArray(verdict.summary) && verdict.summary.length > 0)
    for (const s of verdict.summary) found[s.severity] = (found[s.severity] ?? 0) + s.count;
  else for (const v of verdict.violations ?? []) found[v.severity] = (found[v.severity] ?? 0) + 1;
  return found;
}

/** The console page: a stored verdict's own (as the server links it), else the project's (drafts and traffic runs have no page). */
function consoleUrl(inputs, answer) {
  const linked = answer.reports?.sarif?.runs?.[0]?.properties?.verdictUrl;
  if (typeof linked === "string" && /\/admin\/projects\/[^/]+\/verdicts\/\d+$/.test(linked)) return linked;
  return `${inputs.server}/admin/projects/${encodeURIComponent(inputs.project)}`;
}

function readAnswer(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ActionFailure(
      `The Arbiter CLI reported a verdict but its answer could not be read (${error.message}): run again, and report it if it persists.`,
    );
  }
}

await main("Arbiter", async () => {
  // First of all, so that no later line (an error message included) can show the key.
  if (input("ci-key")) mask(input("ci-key"));
  const inputs = verdictInputs();
  const dir = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), "arbiter-"));
  const files = {
    json: join(dir, "answer.json"),
    sarif: inputs.sarifFile || join(dir, "arbiter.sarif"),
    markdown: join(dir, "arbiter.md"),
  };
  const cli = inputs.cli === "served" ? await servedCli(inputs.server, dir) : REPOSITORY_CLI;
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd();

  const run = await runCli(cli, cliArguments(inputs, files), cliEnvironment(inputs), workspace);
  if (run.code === 2) throw unverified(run.stderr);
  if (run.code !== 0 && run.code !== 1)
    throw new ActionFailure(
      `The Arbiter CLI ended unexpectedly (${run.signal ? `signal ${run.signal}` : `exit ${run.code}`}): ${run.stderr.trim().split("\n")[0] || "no message"}.`,
    );
  for (const line of run.stderr.split("\n").filter(Boolean)) info(line);

  const answer = readAnswer(files.json);
  const verdict = answer.verdict ?? {};
  const found = counts(verdict);
  const url = consoleUrl(inputs, answer);
  // A contract upload's own Markdown adds the changelog (what the version breaks) to the constitution check.
  const markdown = typeof answer.markdown === "string" ? answer.markdown : readFileSync(files.markdown, "utf8");
  writeFileSync(files.markdown, markdown);
  const breaking = inputs.mode === "contract" ? (answer.breakingChanges?.count ?? 0) : 0;

  setOutput("verdict", verdict.approved ? "approved" : "rejected");
  setOutput("approved", verdict.approved ? "true" : "false");
  setOutput("errors", found.error);
  setOutput("warnings", found.warning);
  setOutput("infos", found.info);
  setOutput("violations", verdict.totalViolations ?? found.error + found.warning + found.info);
  setOutput("breaking-changes", breaking);
  setOutput("url", url);
  setOutput("sarif-file", files.sarif);
  setOutput("markdown-file", files.markdown);
  setOutput("json-file", files.json);
  appendSummary(markdown, `the full verdict is at ${url}`);
  const changes = inputs.mode === "contract" ? `, ${plural(breaking, "breaking change")}` : "";
  info(
    `Arbiter ${inputs.project} (${inputs.mode}): ${verdict.approved ? "approved" : "rejected"}, ${plural(found.error, "error")}, ${plural(found.warning, "warning")}, ${found.info} info${changes}. ${url}`,
  );
});
