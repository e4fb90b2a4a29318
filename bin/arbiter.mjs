#!/usr/bin/env node
// Arbiter CI client: uploads an implementation's OpenAPI document (a snapshot) or a failed build to an Arbiter
// server and reports the verdict. Zero dependencies: Node 18.3 or later (node:util parseArgs arrived in 18.3.0;
// global fetch in 18.0, AbortSignal.timeout in 17.3).
// Exit codes: 0 approved (or recorded), 1 rejected, 2 could not verify (usage, network, auth, unknown project,
// invalid document, ...). The server also serves this file at GET /cli/arbiter.mjs.
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const VERSION = "0.1.0";
export const EXIT = Object.freeze({ approved: 0, rejected: 1, unverified: 2 });

const HELP = `arbiter ${VERSION}: spec arbitration for CI

Usage:
  arbiter snapshot <openapi-file> --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>]
                   [--junit <file>] [--markdown <file>] [--json <file>]
  arbiter contract <openapi-file> --project <name> [--label <text>] [--markdown <file>] [--json <file>]
  arbiter exchanges <har-or-ndjson-file> --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>]
                    [--contract-version <n>] [--junit <file>] [--markdown <file>] [--json <file>]
  arbiter build-failed --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>] [--log-file <file>]

  <openapi-file> is JSON or YAML; "-" reads standard input.
  <har-or-ndjson-file> is the traffic integration tests recorded: a HAR 1.2 file, or NDJSON (.ndjson / .jsonl),
  one {method, url or path, status, requestHeaders?, requestBody?, responseHeaders?, responseBody?} per line.

Options (flags win over environment variables):
  --url <url>        Arbiter server, e.g. https://arbiter.example.com           (ARBITER_URL)
  --token <token>    CI key (arb_ci_...) or OAuth access token for the REST API  (ARBITER_TOKEN)
  --project <name>   Project name                                               (ARBITER_PROJECT)
  --commit <sha>     Commit of the build        (default: GITHUB_SHA, CI_COMMIT_SHA)
  --branch <name>    Branch of the build        (default: GITHUB_HEAD_REF or GITHUB_REF_NAME, CI_COMMIT_REF_NAME)
  --run-url <url>    Link to the CI run         (default: built from GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID)
  --junit <file>     Write the verdict as JUnit XML (one test case per violation)
  --markdown <file>  Write the verdict as Markdown (for a pull-request comment)
  --json <file>      Write the server's answer as JSON
  --log-file <file>  build-failed: the build log; its last 64 KiB are sent
  --contract-version <n>  exchanges: check against this contract version (default: the active one)
  --timeout <sec>    Give up after this many seconds (default 120)
  -h, --help         Show this help;  --version  Show the version

Exit codes: 0 approved (build-failed: recorded), 1 rejected, 2 could not verify.
`;

class Unverified extends Error {}

function fail(message) {
  throw new Unverified(message);
}

function options(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: "string" },
        token: { type: "string" },
        project: { type: "string" },
        commit: { type: "string" },
        branch: { type: "string" },
        "run-url": { type: "string" },
        label: { type: "string" },
        junit: { type: "string" },
        markdown: { type: "string" },
        json: { type: "string" },
        "log-file": { type: "string" },
        "contract-version": { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    fail(`${error.message}\nRun "arbiter --help" for usage.`);
  }
  return parsed;
}

function githubRunUrl(env) {
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  return env.CI_JOB_URL || undefined;
}

function settings(values, env) {
  const url = values.url ?? env.ARBITER_URL;
  const token = values.token ?? env.ARBITER_TOKEN;
  const project = values.project ?? env.ARBITER_PROJECT;
  if (!url) fail("No server: pass --url or set ARBITER_URL (e.g. https://arbiter.example.com).");
  if (!token) fail("No credentials: pass --token or set ARBITER_TOKEN (a CI key from your organization admin).");
  if (!project) fail("No project: pass --project or set ARBITER_PROJECT.");
  let base;
  try {
    base = new URL(url);
  } catch {
    fail(`--url / ARBITER_URL is not a URL: ${url}`);
  }
  const timeout = values.timeout === undefined ? 120 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) fail("--timeout must be a positive number of seconds.");
  return {
    base: base.origin,
    token,
    project,
    commit: values.commit ?? env.GITHUB_SHA ?? env.CI_COMMIT_SHA,
    branch: values.branch ?? (env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || undefined),
    runUrl: values["run-url"] ?? githubRunUrl(env),
    timeoutMs: timeout * 1000,
  };
}

function readInput(path) {
  if (!path) fail("Name the OpenAPI document to upload (a file path, or - for standard input).");
  try {
    return readFileSync(path === "-" ? 0 : path);
  } catch (error) {
    fail(`Cannot read ${path}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
  }
}

function contentTypeOf(path, bytes) {
  if (/\.ya?ml$/i.test(path)) return "application/yaml";
  if (/\.json$/i.test(path)) return "application/json";
  const first = bytes.subarray(0, 64).toString("utf8").trimStart()[0];
  return first === "{" || first === "[" ? "application/json" : "application/yaml";
}

async function request(config, method, path, body, contentType) {
  let response;
  try {
    response = await fetch(`${config.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${config.token}`, Accept: "application/json", ...(contentType ? { "Content-Type": contentType } : {}) },
      body,
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    const reason = error.name === "TimeoutError" ? `no answer within ${config.timeoutMs / 1000} s` : (error.cause?.code ?? error.cause?.message ?? error.message);
    fail(`Cannot reach Arbiter at ${config.base}: ${reason}.`);
  }
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (response.ok && data) return data;
  if (response.status === 401) fail("Arbiter refused the credentials (401): the CI key is unknown, revoked or expired, or the token is not for the REST API. Ask an organization admin for a new key.");
  const error = data?.error;
  if (error?.message) {
    const problems = Array.isArray(error.details?.problems) ? `\n${error.details.problems.slice(0, 20).map((p) => `  - ${p.path || "(document)"}: ${p.message}`).join("\n")}` : "";
    fail(`Arbiter answered ${response.status} ${error.code ?? ""}: ${error.message}${problems}`);
  }
  const challenge = response.headers.get("www-authenticate");
  if (response.status === 403 && challenge) fail(`Arbiter refused the request (403): ${/error_description="([^"]*)"/.exec(challenge)?.[1] ?? "insufficient scope"}.`);
  fail(`Arbiter answered ${response.status} ${response.statusText || ""}`.trim() + ".");
}

const projectPath = (config, suffix) => `/api/v1/projects/${encodeURIComponent(config.project)}${suffix}`;

function query(entries) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

// ---- reports ------------------------------------------------------------------------------------------------

function xml(text) {
  return String(text)
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

export function junitXml(project, verdict, subject) {
  const violations = verdict.violations ?? [];
  const failures = violations.filter((v) => v.severity === "error").length;
  const cases = violations.map((v) => {
    const name = xml(`${v.rule}: ${v.location}`);
    const classname = xml(`arbiter.${project}.${v.rule}`);
    if (v.severity === "error") return `    <testcase name="${name}" classname="${classname}">\n      <failure message="${xml(v.message)}" type="${xml(v.rule)}">${xml(`${v.location}\n${v.message}`)}</failure>\n    </testcase>`;
    return `    <testcase name="${name}" classname="${classname}">\n      <system-out>${xml(`${v.severity}: ${v.message}`)}</system-out>\n    </testcase>`;
  });
  if (cases.length === 0) cases.push(`    <testcase name="${xml(`${subject} conforms`)}" classname="${xml(`arbiter.${project}`)}"/>`);
  const tests = Math.max(1, violations.length);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="arbiter" tests="${tests}" failures="${failures}" errors="0">\n  <testsuite name="${xml(`arbiter ${project}: ${subject}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="0">\n${cases.join("\n")}\n  </testsuite>\n</testsuites>\n`;
}

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function summaryText(heading, verdict, limit = 50) {
  const violations = verdict.violations ?? [];
  const counts = { error: 0, warning: 0, info: 0 };
  for (const v of violations) counts[v.severity] = (counts[v.severity] ?? 0) + 1;
  const lines = [`${heading}: ${verdict.approved ? "APPROVED" : "REJECTED"}`, `  ${plural(counts.error, "error")}, ${plural(counts.warning, "warning")}, ${counts.info} info`];
  for (const v of violations.slice(0, limit)) lines.push(`  ${v.severity.toUpperCase().padEnd(7)} ${v.rule}  ${v.location}\n          ${v.message}`);
  if (violations.length > limit) lines.push(`  ... and ${violations.length - limit} more (see the JUnit or Markdown report)`);
  return lines.join("\n");
}

/** Used when the server's answer carries no Markdown (older servers). */
function fallbackMarkdown(heading, verdict) {
  const cell = (text) => String(text).replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  const rows = (verdict.violations ?? []).map((v) => `| ${v.severity} | \`${cell(v.rule)}\` | \`${cell(v.location)}\` | ${cell(v.message)} |`);
  return [`### ${heading}: ${verdict.approved ? "approved" : "rejected"}`, "", rows.length ? "| Severity | Rule | Location | Message |\n| --- | --- | --- | --- |\n" + rows.join("\n") : "No violations.", ""].join("\n");
}

function write(path, text, what) {
  try {
    writeFileSync(path, text);
  } catch (error) {
    fail(`Cannot write the ${what} to ${path}: ${error.message}`);
  }
}

function writeReports(values, project, heading, subject, answer) {
  if (values.junit) write(values.junit, junitXml(project, answer.verdict, subject), "JUnit report");
  if (values.markdown) write(values.markdown, answer.markdown ?? fallbackMarkdown(heading, answer.verdict), "Markdown report");
  if (values.json) write(values.json, `${JSON.stringify(answer, null, 2)}\n`, "JSON answer");
}

// ---- commands -----------------------------------------------------------------------------------------------

async function snapshot(values, positionals, env, out) {
  const config = settings(values, env);
  if (!config.commit) fail("No commit: pass --commit (GITHUB_SHA is used on GitHub Actions).");
  const file = positionals[0];
  const bytes = readInput(file);
  const answer = await request(config, "POST", projectPath(config, `/snapshots${query({ commit: config.commit, branch: config.branch, runUrl: config.runUrl })}`), bytes, contentTypeOf(file, bytes));
  const s = answer.snapshot;
  const heading = `Arbiter: ${config.project} snapshot #${s.id} (commit ${s.commit}) against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""}`;
  out(summaryText(heading, answer.verdict));
  writeReports(values, config.project, heading, `snapshot ${s.commit}`, answer);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

async function contract(values, positionals, env, out) {
  const config = settings(values, env);
  const file = positionals[0];
  const bytes = readInput(file);
  const answer = await request(config, "POST", projectPath(config, `/contracts${query({ label: values.label })}`), bytes, contentTypeOf(file, bytes));
  const c = answer.contract;
  const heading = `Arbiter: ${config.project} contract v${c.version}${c.label ? ` (${c.label})` : ""} is now active; constitution check`;
  out(summaryText(heading, answer.verdict));
  writeReports(values, config.project, heading, `contract v${c.version}`, answer);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

/** Recorded traffic: HAR (JSON) or NDJSON by extension; anything else lets the server tell from the content. */
function recordingType(path) {
  if (/\.(ndjson|jsonl)$/i.test(path)) return "application/x-ndjson";
  if (/\.(har|json)$/i.test(path)) return "application/json";
  return "application/octet-stream";
}

async function exchanges(values, positionals, env, out) {
  const config = settings(values, env);
  const version = values["contract-version"];
  if (version !== undefined && !/^[1-9]\d{0,14}$/.test(version)) fail("--contract-version must be a contract version number such as 3.");
  const file = positionals[0];
  if (!file) fail("Name the recorded traffic to check (a HAR file or NDJSON, or - for standard input).");
  const bytes = readInput(file);
  const path = projectPath(config, `/exchanges${query({ contractVersion: version, commit: config.commit, branch: config.branch, runUrl: config.runUrl })}`);
  const answer = await request(config, "POST", path, bytes, recordingType(file));
  const run = answer.run;
  const heading = `Arbiter: ${config.project} recorded traffic run #${run.id} (${plural(run.exchangeCount, "exchange")}${run.commit ? `, commit ${run.commit}` : ""}) against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""}`;
  out(summaryText(heading, answer.verdict));
  if (answer.verdict.totalViolations > (answer.verdict.violations ?? []).length) out(`  (${answer.verdict.totalViolations} violations in all; the first ${answer.verdict.violations.length} are listed)`);
  writeReports(values, config.project, heading, `recorded traffic run ${run.id}`, answer);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

const LOG_TAIL_BYTES = 64 * 1024;

async function buildFailed(values, _positionals, env, out) {
  const config = settings(values, env);
  if (!config.commit) fail("No commit: pass --commit (GITHUB_SHA is used on GitHub Actions).");
  let log = "";
  if (values["log-file"]) {
    const bytes = readInput(values["log-file"]);
    log = bytes.subarray(Math.max(0, bytes.byteLength - LOG_TAIL_BYTES)).toString("utf8");
  }
  const body = JSON.stringify({ commit: config.commit, ...(config.branch ? { branch: config.branch } : {}), ...(config.runUrl ? { runUrl: config.runUrl } : {}), log });
  const answer = await request(config, "POST", projectPath(config, "/builds"), body, "application/json");
  out(`Arbiter: recorded failed build #${answer.build.id} of ${config.project} at commit ${answer.build.commit}. Agents checking conformance will be told to fix the build first.`);
  if (values.json) write(values.json, `${JSON.stringify(answer, null, 2)}\n`, "JSON answer");
  return EXIT.approved;
}

const COMMANDS = { snapshot, contract, exchanges, "build-failed": buildFailed };

export async function main(argv = process.argv.slice(2), env = process.env, out = (line) => console.log(line), err = (line) => console.error(line)) {
  try {
    const { values, positionals } = options(argv);
    if (values.version) {
      out(VERSION);
      return EXIT.approved;
    }
    const [command, ...rest] = positionals;
    if (values.help || !command) {
      out(HELP);
      return values.help ? EXIT.approved : EXIT.unverified;
    }
    const run = COMMANDS[command];
    if (!run) fail(`Unknown command "${command}". Commands: ${Object.keys(COMMANDS).join(", ")}. Run "arbiter --help".`);
    return await run(values, rest, env, out);
  } catch (error) {
    if (error instanceof Unverified) {
      err(`arbiter: could not verify: ${error.message}`);
      return EXIT.unverified;
    }
    err(`arbiter: could not verify: unexpected error: ${error?.message ?? error}`);
    return EXIT.unverified;
  }
}

function invokedDirectly() {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (invokedDirectly()) process.exitCode = await main();
