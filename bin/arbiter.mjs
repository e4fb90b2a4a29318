#!/usr/bin/env node
// Arbiter CI client: uploads an implementation's OpenAPI document (a snapshot) or a failed build to an Arbiter
// server and reports the verdict; on a person's machine it also logs in through the browser (OAuth) and hands
// out a current access token to scripts. Zero dependencies: Node 18.3 or later (node:util parseArgs arrived in
// 18.3.0; global fetch in 18.0, AbortSignal.timeout in 17.3, server.closeAllConnections in 18.2).
// Exit codes: 0 approved (or recorded), 1 rejected, 2 could not verify (usage, network, auth, unknown project,
// invalid document, ...); login, token and logout exit 0 on success and 2 on failure. The server also serves
// this file at GET /cli/arbiter.mjs.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const VERSION = "0.1.0";
export const EXIT = Object.freeze({ approved: 0, rejected: 1, unverified: 2 });

const HELP = `arbiter ${VERSION}: spec arbitration for CI

Usage:
  arbiter snapshot <openapi-file> --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>]
                   [--junit <file>] [--markdown <file>] [--json <file>]
  arbiter contract <openapi-file> --project <name> [--label <text>] [--markdown <file>] [--json <file>]
  arbiter build-failed --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>] [--log-file <file>]
  arbiter exchanges <har-or-ndjson-file> --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>]
                    [--contract-version <n>]                                  recorded traffic from integration tests
  arbiter check <openapi-file> --project <name> [--contract-version <n>]     a local build's document, not stored
  arbiter diff [<contract-file>] --project <name> [--from <n>] [--to <n>]     what a contract change breaks

  Every command that gets a verdict takes --format <fmt> (print that format instead of the summary) and
  --out-<fmt> <file> (write it; several at once), <fmt> one of json, markdown, junit, sarif, github.

  arbiter login --server <url> [--scope <scope>]... [--resource api|mcp] [--no-browser] [--timeout <sec>]
  arbiter token [--server <url>] [--resource api|mcp]
  arbiter logout [--server <url>] [--resource api|mcp]

  <openapi-file> is JSON or YAML; "-" reads standard input.
  <har-or-ndjson-file> is the traffic integration tests recorded: a HAR 1.2 file, or NDJSON (.ndjson / .jsonl),
  one {method, url or path, status, requestHeaders?, requestBody?, responseHeaders?, responseBody?} per line.

Signing in on your own machine (CI uses a CI key instead):
  login    Opens the server's sign-in and consent page in your browser (the URL is always printed, so it also
           works where no browser can be opened) and stores the tokens in a file only you can read:
           $XDG_CONFIG_HOME/arbiter/credentials.json (default ~/.config/arbiter/credentials.json).
           Default scopes for the REST API: contracts.read contracts.write snapshots.write (what the commands
           above need); for --resource mcp the MCP server's baseline. offline_access is always requested, so
           the CLI gets a refresh token and can renew the token when it expires.
  token    Prints a current access token for the REST API (or --resource mcp), renewing it when it has
           expired: TOKEN=$(arbiter token). snapshot, contract and build-failed use it when no --token is given.
  logout   Revokes the tokens at the server and deletes the stored credentials.

Options (flags win over environment variables):
  --url <url>        Arbiter server, e.g. https://arbiter.example.com (--server is the same)  (ARBITER_URL)
  --token <token>    CI key (arb_ci_...) or OAuth access token for the REST API  (ARBITER_TOKEN)
  --project <name>   Project name                                               (ARBITER_PROJECT)
  --commit <sha>     Commit of the build        (default: GITHUB_SHA, CI_COMMIT_SHA)
  --branch <name>    Branch of the build        (default: GITHUB_HEAD_REF or GITHUB_REF_NAME, CI_COMMIT_REF_NAME)
  --run-url <url>    Link to the CI run         (default: built from GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID)
  --format <fmt>     Print the verdict as json, markdown, junit, sarif or github (workflow commands) on stdout
  --out-<fmt> <file> Write the verdict in that format to <file>: --out-json (the server's whole answer),
                     --out-markdown, --out-junit, --out-sarif, --out-github; repeatable across formats
  --junit, --markdown, --json <file>   The same as --out-junit, --out-markdown, --out-json
  --artifact <path>  SARIF: the document's path in the repository (default: the file given)
  --contract-version <n>  check, exchanges: the contract version to check against (default: the active one)
  --from <n>, --to <n>    diff: the version clients rely on (default: active) and a stored version to compare
  --log-file <file>  build-failed: the build log; its last 64 KiB are sent
  --timeout <sec>    Give up after this many seconds (default 120; login: time to finish in the browser, 300)
  --scope <scope>    login: ask for these scopes instead of the defaults (repeat, or separate by spaces)
  --resource <name>  api (the REST API and /chat, default) or mcp (an MCP token, for the Inspector and scripts)
  --no-browser       login: only print the URL to open
  -h, --help         Show this help;  --version  Show the version

Exit codes: 0 approved (build-failed: recorded; diff: nothing breaks), 1 rejected (diff: breaking changes),
2 could not verify.
login, token, logout: 0 done, 2 failed (the message says why).
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
        server: { type: "string" },
        token: { type: "string" },
        project: { type: "string" },
        commit: { type: "string" },
        branch: { type: "string" },
        "run-url": { type: "string" },
        label: { type: "string" },
        junit: { type: "string" },
        markdown: { type: "string" },
        json: { type: "string" },
        format: { type: "string" },
        "out-json": { type: "string" },
        "out-markdown": { type: "string" },
        "out-junit": { type: "string" },
        "out-sarif": { type: "string" },
        "out-github": { type: "string" },
        artifact: { type: "string" },
        "contract-version": { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        "log-file": { type: "string" },
        timeout: { type: "string" },
        scope: { type: "string", multiple: true },
        resource: { type: "string" },
        "no-browser": { type: "boolean" },
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

async function settings(values, env) {
  const url = values.url ?? values.server ?? env.ARBITER_URL;
  const project = values.project ?? env.ARBITER_PROJECT;
  if (!url) fail("No server: pass --url or set ARBITER_URL (e.g. https://arbiter.example.com).");
  let base;
  try {
    base = new URL(url);
  } catch {
    fail(`--url / ARBITER_URL is not a URL: ${url}`);
  }
  let token = values.token ?? env.ARBITER_TOKEN;
  let fromLogin = false;
  if (!token) {
    // On a person's machine: the REST token that "arbiter login" stored for this server, renewed if needed.
    const file = credentialsFile(env);
    const store = loadCredentials(file);
    if (store.servers[base.origin]?.tokens?.api) {
      token = await currentAccessToken(file, store, base.origin, "api");
      fromLogin = true;
    }
  }
  if (!token) fail(`No credentials: pass --token or set ARBITER_TOKEN (a CI key from your organization admin), or run "arbiter login --server ${base.origin}" on your own machine.`);
  if (!project) fail("No project: pass --project or set ARBITER_PROJECT.");
  const timeout = values.timeout === undefined ? 120 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) fail("--timeout must be a positive number of seconds.");
  return {
    base: base.origin,
    token,
    fromLogin,
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

/** fetch with a deadline; a network failure or timeout becomes a message naming the server and the cause. */
async function reach(url, init, timeoutMs) {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason = error.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (error.cause?.code ?? error.cause?.message ?? error.message);
    fail(`Cannot reach Arbiter at ${new URL(url).origin}: ${reason}.`);
  }
}

async function request(config, method, path, body, contentType) {
  const response = await reach(
    `${config.base}${path}`,
    { method, headers: { Authorization: `Bearer ${config.token}`, Accept: "application/json", ...(contentType ? { "Content-Type": contentType } : {}) }, body },
    config.timeoutMs,
  );
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (response.ok && data) return data;
  // The server's 401 body says which of these it was (problem+json `detail`).
  const said = response.status === 401 && typeof data?.detail === "string" ? ` Arbiter says: ${printable(data.detail)}` : "";
  if (response.status === 401 && config.fromLogin) fail(`Arbiter refused the token from "arbiter login" (401): it was revoked or is not for the REST API. Run "arbiter login --server ${config.base}" again.${said}`);
  if (response.status === 401) fail(`Arbiter refused the credentials (401): the CI key is unknown, revoked or expired, or the token is not for the REST API. Ask an organization admin for a new key.${said}`);
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

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function summaryText(heading, verdict, limit = 50) {
  const violations = verdict.violations ?? [];
  const counts = { error: 0, warning: 0, info: 0 };
  // The server lists at most 500 violations per rule; its summary and totalViolations count all of them.
  if (Array.isArray(verdict.summary) && verdict.summary.length > 0) for (const s of verdict.summary) counts[s.severity] = (counts[s.severity] ?? 0) + s.count;
  else for (const v of violations) counts[v.severity] = (counts[v.severity] ?? 0) + 1;
  const total = Math.max(violations.length, typeof verdict.totalViolations === "number" ? verdict.totalViolations : 0);
  const lines = [`${heading}: ${verdict.approved ? "APPROVED" : "REJECTED"}`, `  ${plural(counts.error, "error")}, ${plural(counts.warning, "warning")}, ${counts.info} info`];
  const shown = violations.slice(0, limit);
  for (const v of shown) lines.push(`  ${v.severity.toUpperCase().padEnd(7)} ${v.rule}  ${v.location}\n          ${v.message}`);
  if (total > shown.length) lines.push(`  ... and ${total - shown.length} more (see the JUnit or Markdown report)`);
  return lines.join("\n");
}

function write(path, text, what) {
  try {
    writeFileSync(path, text);
  } catch (error) {
    fail(`Cannot write the ${what} to ${path}: ${error.message}`);
  }
}

const FORMATS = ["json", "markdown", "junit", "sarif", "github"];

/** Which formats to print and to write: --format, --out-<fmt>, and the older --junit/--markdown/--json. */
function reportChoice(values) {
  const files = {};
  for (const format of FORMATS) if (values[`out-${format}`]) files[format] = values[`out-${format}`];
  for (const format of ["junit", "markdown", "json"]) if (values[format] && !files[format]) files[format] = values[format];
  if (values.format !== undefined && !FORMATS.includes(values.format)) fail(`--format ${values.format} is not one of ${FORMATS.join(", ")}.`);
  const wanted = new Set(Object.keys(files));
  if (values.format) wanted.add(values.format);
  wanted.delete("json");
  return { files, print: values.format, formats: [...wanted] };
}

/** The query members that ask the server to render the reports (one round trip for every format). */
function reportQuery(choice, values, file) {
  const artifact = values.artifact ?? (file && file !== "-" ? file : undefined);
  return { ...(choice.formats.length ? { formats: choice.formats.join(",") } : {}), ...(artifact ? { artifact } : {}) };
}

function reportText(format, answer) {
  if (format === "json") return `${JSON.stringify(answer, null, 2)}\n`;
  const report = answer.reports?.[format];
  if (report === undefined) fail(`The server sent no ${format} report: it may be older than this CLI.`);
  return typeof report === "string" ? report : `${JSON.stringify(report, null, 2)}\n`;
}

/** Prints the summary (or --format) and writes each --out-<fmt> file. */
function deliver(choice, heading, answer, out) {
  out(choice.print ? reportText(choice.print, answer).trimEnd() : summaryText(heading, answer.verdict));
  for (const [format, path] of Object.entries(choice.files)) write(path, reportText(format, answer), `${format} report`);
}

// ---- commands -----------------------------------------------------------------------------------------------

async function snapshot(values, positionals, env, out) {
  const config = await settings(values, env);
  if (!config.commit) fail("No commit: pass --commit (GITHUB_SHA is used on GitHub Actions).");
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const answer = await request(config, "POST", projectPath(config, `/snapshots${query({ commit: config.commit, branch: config.branch, runUrl: config.runUrl, ...reportQuery(choice, values, file) })}`), bytes, contentTypeOf(file, bytes));
  const s = answer.snapshot;
  const heading = `Arbiter: ${config.project} snapshot #${s.id} (commit ${s.commit}) against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""}`;
  deliver(choice, heading, answer, out);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

async function contract(values, positionals, env, out) {
  const config = await settings(values, env);
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const answer = await request(config, "POST", projectPath(config, `/contracts${query({ label: values.label, ...reportQuery(choice, values, file) })}`), bytes, contentTypeOf(file, bytes));
  const c = answer.contract;
  const state = answer.activated === false ? "is stored but NOT active (it breaks clients of the active version; see below)" : "is now active";
  const heading = `Arbiter: ${config.project} contract v${c.version}${c.label ? ` (${c.label})` : ""} ${state}; constitution check`;
  deliver(choice, heading, answer, out);
  const change = answer.breakingChanges;
  if (change && !choice.print) out(summaryText(`Changes for clients of v${change.comparedWithVersion}: ${plural(change.count, "breaking change")}`, change));
  if (answer.activation) out(answer.activation);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

function versionOption(values, name) {
  const text = values[name];
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(text)) fail(`--${name} must be a contract version number such as 3, got "${text}".`);
  return text;
}

/** Recorded traffic: HAR (JSON) or NDJSON by extension; anything else lets the server tell from the content. */
function recordingType(path) {
  if (/\.(ndjson|jsonl)$/i.test(path)) return "application/x-ndjson";
  if (/\.(har|json)$/i.test(path)) return "application/json";
  return "application/octet-stream";
}

async function exchanges(values, positionals, env, out) {
  const config = await settings(values, env);
  const file = positionals[0];
  if (!file) fail("Name the recorded traffic to check (a HAR file or NDJSON, or - for standard input).");
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const path = projectPath(config, `/exchanges${query({ contractVersion: versionOption(values, "contract-version"), commit: config.commit, branch: config.branch, runUrl: config.runUrl, ...reportQuery(choice, values, file) })}`);
  const answer = await request(config, "POST", path, bytes, recordingType(file));
  const run = answer.run;
  const heading = `Arbiter: ${config.project} recorded traffic run #${run.id} (${plural(run.exchangeCount, "exchange")}${run.commit ? `, commit ${run.commit}` : ""}) against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""}`;
  deliver(choice, heading, answer, out);
  if (!choice.print && answer.verdict.totalViolations > (answer.verdict.violations ?? []).length) out(`  (${answer.verdict.totalViolations} violations in all; the first ${answer.verdict.violations.length} are listed)`);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

async function check(values, positionals, env, out) {
  const config = await settings(values, env);
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const answer = await request(config, "POST", projectPath(config, `/drafts${query({ contractVersion: versionOption(values, "contract-version"), ...reportQuery(choice, values, file) })}`), bytes, contentTypeOf(file, bytes));
  const heading = `Arbiter: ${config.project} draft ${file} against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""} (not stored; CI's snapshot is the verdict of record)`;
  deliver(choice, heading, answer, out);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

async function diff(values, positionals, env, out) {
  const config = await settings(values, env);
  const file = positionals[0];
  const to = versionOption(values, "to");
  if ((file === undefined) === (to === undefined)) fail("Compare either an edited contract file (arbiter diff FILE) or a stored version (--to <n>), not both and not neither.");
  const bytes = file === undefined ? undefined : readInput(file);
  const choice = reportChoice(values);
  const path = projectPath(config, `/contracts/compare${query({ from: versionOption(values, "from"), to, ...reportQuery(choice, values, file) })}`);
  const answer = await request(config, "POST", path, bytes, bytes ? contentTypeOf(file, bytes) : undefined);
  const heading = `Arbiter: ${config.project} ${to ? `v${to}` : file} for clients of v${answer.from.version}: ${plural(answer.breakingChanges.count, "breaking change")}`;
  deliver(choice, heading, answer, out);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}

const LOG_TAIL_BYTES = 64 * 1024;

async function buildFailed(values, _positionals, env, out) {
  const config = await settings(values, env);
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

// ---- login, token, logout: OAuth for a person at a terminal ---------------------------------------------------
// The authorization-code flow with PKCE (S256) through the person's browser and a loopback redirect
// (RFC 8252: http://127.0.0.1:<random port>/callback; section 7.3 has the server accept any port there, so the
// client registered once keeps working on the next login's port). The CLI registers itself as a public client
// (RFC 7591, token_endpoint_auth_method none) and finds every endpoint in the server's metadata (RFC 9728 for
// the protected resource, RFC 8414 for the authorization server).

const RESOURCE_NAMES = ["api", "mcp"];
/** What this CLI's own commands need on the REST API: contract, snapshot and build-failed, and reading verdicts. */
const CLI_SCOPES = Object.freeze({ api: ["contracts.read", "contracts.write", "snapshots.write"], mcp: [] });
// Arbiter issues a refresh token only when the grant includes offline_access.
const OFFLINE_ACCESS = "offline_access";
const LOGIN_WAIT_SECONDS = 300;
const OAUTH_TIMEOUT_MS = 30_000;
// Renew a little before the expiry, so a token handed to a script does not expire on its way.
const RENEW_BEFORE_MS = 60_000;

/** $XDG_CONFIG_HOME/arbiter/credentials.json, else ~/.config/arbiter (%APPDATA%\arbiter on Windows). */
export function credentialsFile(env) {
  const home = env.HOME || env.USERPROFILE || homedir();
  const base = env.XDG_CONFIG_HOME || (process.platform === "win32" && env.APPDATA) || join(home, ".config");
  return join(base, "arbiter", "credentials.json");
}

/** { servers: { <origin>: { issuer, clientId, tokenEndpoint, revocationEndpoint, tokens: { api?, mcp? } } } } */
function loadCredentials(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return { servers: {} };
    fail(`Cannot read ${file}: ${error.message}`);
  }
  try {
    const data = JSON.parse(text);
    if (data && typeof data.servers === "object" && data.servers !== null) return data;
  } catch {
    // reported below
  }
  fail(`${file} is not a credentials file this CLI wrote: delete it and run "arbiter login" again.`);
}

/** Written whole to a new file created with mode 0600 and renamed over the old one: never readable by others, never half-written. */
function saveCredentials(file, store) {
  try {
    if (Object.keys(store.servers).length === 0) {
      rmSync(file, { force: true });
      return;
    }
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // the directory may already exist with looser permissions
    const temporary = `${file}.${process.pid}.tmp`;
    rmSync(temporary, { force: true });
    writeFileSync(temporary, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    renameSync(temporary, file);
  } catch (error) {
    fail(`Cannot write the credentials to ${file}: ${error.message}`);
  }
}

/** The server's origin; plain http only on loopback, since tokens travel in the clear otherwise. */
function serverOrigin(url, flag) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    fail(`${flag} is not a URL: ${url} (e.g. https://arbiter.example.com).`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) fail(`${flag} must be an https URL (plain http only for localhost): ${url}`);
  return parsed.origin;
}

function resourceNameOf(values) {
  const name = values.resource ?? "api";
  if (!RESOURCE_NAMES.includes(name)) fail(`--resource must be api (the REST API and /chat) or mcp (the MCP server), not "${name}".`);
  return name;
}

/** The server named by --server / --url / ARBITER_URL, else the only one logged in to. */
function chosenServer(values, env, store) {
  const url = values.server ?? values.url ?? env.ARBITER_URL;
  if (url) return serverOrigin(url, values.server ? "--server" : values.url ? "--url" : "ARBITER_URL");
  const known = Object.keys(store.servers);
  if (known.length === 1) return known[0];
  if (known.length === 0) return undefined;
  fail(`Logged in to several servers (${known.join(", ")}): pass --server to choose one.`);
}

const loginHint = (origin, resourceName) => `"arbiter login --server ${origin}${resourceName === "mcp" ? " --resource mcp" : ""}"`;

/** Text from the server made safe for a terminal: no control characters, bounded length. */
function printable(text, limit = 300) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").slice(0, limit);
}

function oauthProblem(status, data) {
  const code = typeof data?.error === "string" ? ` ${printable(data.error, 60)}` : "";
  const description = typeof data?.error_description === "string" ? `: ${printable(data.error_description)}` : "";
  return `${status}${code}${description}`;
}

async function jsonBody(response) {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

async function postForm(url, fields) {
  const response = await reach(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" }, body: new URLSearchParams(fields) }, OAUTH_TIMEOUT_MS);
  return { status: response.status, data: await jsonBody(response) };
}

/** RFC 8414 section 3 and RFC 9728 section 3.1: the well-known segment goes between the host and the path. */
function wellKnown(identifier, name) {
  const url = new URL(identifier);
  return `${url.origin}/.well-known/${name}${url.pathname === "/" ? "" : url.pathname}`;
}

async function metadataDocument(url, origin) {
  const response = await reach(url, { headers: { Accept: "application/json" } }, OAUTH_TIMEOUT_MS);
  const data = response.ok ? await jsonBody(response) : undefined;
  if (!data || typeof data !== "object") fail(`${origin} does not look like an Arbiter server: GET ${new URL(url).pathname} answered ${response.status}${response.ok ? " without JSON" : ""}. Check --server.`);
  return data;
}

async function discover(origin, resourceName) {
  const resource = `${origin}/${resourceName}`;
  const protectedResource = await metadataDocument(wellKnown(resource, "oauth-protected-resource"), origin);
  if (protectedResource.resource !== resource) fail(`${origin} describes the resource "${printable(protectedResource.resource)}" at its ${resourceName} metadata, not ${resource}: is --server the server's public URL?`);
  const issuer = Array.isArray(protectedResource.authorization_servers) ? protectedResource.authorization_servers[0] : undefined;
  if (typeof issuer !== "string") fail(`${origin}'s resource metadata names no authorization server.`);
  const server = await metadataDocument(wellKnown(issuer, "oauth-authorization-server"), origin);
  if (server.issuer !== issuer) fail(`The authorization server metadata of ${printable(issuer)} names another issuer (${printable(server.issuer)}): refusing to sign in there.`);
  for (const field of ["authorization_endpoint", "token_endpoint", "registration_endpoint"]) {
    if (typeof server[field] !== "string") fail(`The authorization server ${issuer} has no ${field} in its metadata; the CLI needs it to sign in.`);
  }
  if (Array.isArray(server.code_challenge_methods_supported) && !server.code_challenge_methods_supported.includes("S256")) fail(`The authorization server ${issuer} does not support PKCE with S256.`);
  return {
    resource,
    issuer,
    baselineScopes: Array.isArray(protectedResource.scopes_supported) ? protectedResource.scopes_supported.filter((s) => typeof s === "string") : [],
    scopesSupported: Array.isArray(server.scopes_supported) ? server.scopes_supported : undefined,
    authorizationEndpoint: server.authorization_endpoint,
    tokenEndpoint: server.token_endpoint,
    registrationEndpoint: server.registration_endpoint,
    revocationEndpoint: typeof server.revocation_endpoint === "string" ? server.revocation_endpoint : undefined,
  };
}

function requestedScopes(values, resourceName, endpoints) {
  const asked = values.scope?.length ? values.scope.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean) : [...endpoints.baselineScopes, ...CLI_SCOPES[resourceName]];
  const scopes = [...new Set([...asked, OFFLINE_ACCESS])];
  const unknown = endpoints.scopesSupported ? scopes.filter((s) => !endpoints.scopesSupported.includes(s)) : [];
  if (unknown.length > 0) fail(`Unknown scope${unknown.length === 1 ? "" : "s"} ${unknown.map((s) => printable(s, 64)).join(", ")}: the server offers ${endpoints.scopesSupported.join(" ")}.`);
  return scopes;
}

const base64url = (bytes) => Buffer.from(bytes).toString("base64url");

function escapeHtml(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function callbackPage(ok, message) {
  const title = ok ? "Signed in to Arbiter" : "Arbiter login failed";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem"><h1>${title}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/**
 * Listens on 127.0.0.1 (a random free port) for the browser's return to /callback. `answer(ms)` resolves with
 * the authorization code, or fails on a refusal, a state or issuer mismatch, or when the time is up.
 */
function listenForCallback(state, issuer) {
  let settle;
  const outcome = new Promise((resolve) => (settle = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== "/callback") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" }).end("Not found: the Arbiter CLI waits for its sign-in at /callback only.");
      return;
    }
    const query = url.searchParams;
    let result;
    if (query.get("state") !== state) {
      result = { error: "The browser's answer does not belong to the sign-in this command started (state mismatch), so it was ignored and nothing was stored. Run arbiter login again." };
    } else if (query.has("iss") && query.get("iss") !== issuer) {
      result = { error: `The answer came from another authorization server (${printable(query.get("iss"))}, expected ${issuer}), so nothing was stored. Run arbiter login again.` };
    } else if (query.get("error") === "access_denied") {
      result = { error: "Access was denied in the browser (access_denied): nothing was stored. Run arbiter login again and choose Allow to sign in." };
    } else if (query.has("error")) {
      const description = query.get("error_description");
      result = { error: `The server did not grant access (${printable(query.get("error"), 60)}${description ? `: ${printable(description)}` : ""}): nothing was stored.` };
    } else if (!query.get("code")) {
      result = { error: "The browser returned without an authorization code: nothing was stored. Run arbiter login again." };
    } else {
      result = { code: query.get("code") };
    }
    const ok = result.code !== undefined;
    res.writeHead(ok ? 200 : 400, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", Connection: "close" });
    res.end(callbackPage(ok, ok ? "You can close this tab and go back to the terminal." : result.error));
    settle(result);
  });
  const close = () => {
    server.close();
    server.closeAllConnections?.();
  };
  return new Promise((resolve, reject) => {
    server.once("error", (error) => reject(new Unverified(`Cannot listen on 127.0.0.1 for the browser's answer: ${error.message}`)));
    server.listen(0, "127.0.0.1", () => {
      const redirectUri = `http://127.0.0.1:${server.address().port}/callback`;
      const answer = async (waitMs) => {
        let timer;
        const timeUp = new Promise((resolve) => {
          timer = setTimeout(() => resolve({ error: `No answer from the browser within ${waitMs / 1000} s: nothing was stored. Run arbiter login again and finish signing in (--timeout waits longer).` }), waitMs);
        });
        const result = await Promise.race([outcome, timeUp]);
        clearTimeout(timer);
        if (result.error) fail(result.error);
        return result.code;
      };
      resolve({ redirectUri, answer, close });
    });
  });
}

/** Opens `url` with the platform's opener; resolves false when none could be started. Never waits for it. */
function openBrowser(url) {
  const [command, args, options] =
    process.platform === "darwin"
      ? ["open", [url], {}]
      : process.platform === "win32"
        ? // quoted for cmd, where & would otherwise end the command; the URL is percent-encoded, so it holds no quote
          ["cmd", ["/c", "start", '""', `"${url}"`], { windowsVerbatimArguments: true }]
        : ["xdg-open", [url], {}];
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { stdio: "ignore", detached: true, ...options });
    } catch {
      resolve(false);
      return;
    }
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}

async function registerClient(endpoints, redirectUri) {
  const response = await reach(
    endpoints.registrationEndpoint,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        client_name: "Arbiter CLI",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        software_id: "arbiter-cli",
        software_version: VERSION,
      }),
    },
    OAUTH_TIMEOUT_MS,
  );
  const data = await jsonBody(response);
  if (!response.ok || typeof data?.client_id !== "string") fail(`The server refused to register the CLI as an OAuth client (${oauthProblem(response.status, data)}).`);
  return data.client_id;
}

function authorizationUrl(endpoints, clientId, redirectUri, scopes, state, challenge) {
  const url = new URL(endpoints.authorizationEndpoint);
  const params = { response_type: "code", client_id: clientId, redirect_uri: redirectUri, scope: scopes.join(" "), state, code_challenge: challenge, code_challenge_method: "S256", resource: endpoints.resource };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/**
 * Whether the authorization endpoint takes the request. RFC 6749 section 4.1.2.1: a server that does not know
 * the client or will not send to the redirect URI answers itself (4xx) instead of redirecting; anything else
 * (the sign-in redirect) means the browser can go ahead. Checked before the browser opens, so a forgotten client
 * or a refused loopback port is a message here, not an error page and a five-minute wait.
 */
async function authorizationAccepted(url) {
  const response = await reach(url, { redirect: "manual", headers: { Accept: "text/html" } }, OAUTH_TIMEOUT_MS);
  await response.body?.cancel();
  return { ok: response.status < 400, status: response.status };
}

function storedTokens(data, now, previous) {
  if (typeof data?.access_token !== "string" || String(data.token_type).toLowerCase() !== "bearer") fail("The server's token answer carries no bearer access token.");
  const seconds = Number(data.expires_in);
  return {
    accessToken: data.access_token,
    // RFC 6749 section 6: a refresh answer without a new refresh token leaves the old one in use.
    refreshToken: typeof data.refresh_token === "string" ? data.refresh_token : previous?.refreshToken,
    expiresAt: Number.isFinite(seconds) && seconds > 0 ? new Date(now + seconds * 1000).toISOString() : null,
    scope: typeof data.scope === "string" ? data.scope : (previous?.scope ?? ""),
  };
}

async function login(values, _positionals, env, out, err) {
  if (!values.server && !values.url && !env.ARBITER_URL) fail("Name the server: arbiter login --server https://arbiter.example.com (or set ARBITER_URL).");
  const origin = serverOrigin(values.server ?? values.url ?? env.ARBITER_URL, values.server ? "--server" : values.url ? "--url" : "ARBITER_URL");
  const resourceName = resourceNameOf(values);
  const waitSeconds = values.timeout === undefined ? LOGIN_WAIT_SECONDS : Number(values.timeout);
  if (!Number.isFinite(waitSeconds) || waitSeconds <= 0) fail("--timeout must be a positive number of seconds.");
  const file = credentialsFile(env);
  const store = loadCredentials(file); // a broken file is reported before the browser opens
  const endpoints = await discover(origin, resourceName);
  const scopes = requestedScopes(values, resourceName, endpoints);
  const state = base64url(randomBytes(16));
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  const listener = await listenForCallback(state, endpoints.issuer);
  try {
    const saved = store.servers[origin]?.issuer === endpoints.issuer ? store.servers[origin] : undefined;
    let clientId = saved?.clientId;
    let url = clientId ? authorizationUrl(endpoints, clientId, listener.redirectUri, scopes, state, challenge) : undefined;
    if (!url || !(await authorizationAccepted(url)).ok) {
      // First login, or the server no longer knows the stored client: register (again).
      clientId = await registerClient(endpoints, listener.redirectUri);
      url = authorizationUrl(endpoints, clientId, listener.redirectUri, scopes, state, challenge);
      const check = await authorizationAccepted(url);
      if (!check.ok) fail(`The server refused the authorization request (${check.status}) of the client it just registered for ${listener.redirectUri}; it must accept loopback redirect URIs on any port (RFC 8252 section 7.3).`);
    }
    err(`To sign in to ${origin} and allow the Arbiter CLI ${resourceName === "mcp" ? "an MCP token" : "a REST API token"}, open this URL in a browser:\n\n  ${url}\n`);
    if (!values["no-browser"]) err((await openBrowser(url)) ? "A browser window should open; if it does not, open the URL yourself." : "No browser could be opened here: open the URL yourself.");
    err(`Requested scopes: ${scopes.join(" ")} (${OFFLINE_ACCESS} lets the CLI renew the token). Waiting up to ${waitSeconds} s for the browser...`);
    const code = await listener.answer(waitSeconds * 1000);
    const started = Date.now();
    const { status, data } = await postForm(endpoints.tokenEndpoint, { grant_type: "authorization_code", code, redirect_uri: listener.redirectUri, client_id: clientId, code_verifier: verifier, resource: endpoints.resource });
    if (status !== 200) fail(`The server refused to exchange the authorization code for a token (${oauthProblem(status, data)}): nothing was stored. Run arbiter login again.`);
    const tokens = { resource: endpoints.resource, ...storedTokens(data, started) };
    store.servers[origin] = {
      issuer: endpoints.issuer,
      clientId,
      tokenEndpoint: endpoints.tokenEndpoint,
      revocationEndpoint: endpoints.revocationEndpoint,
      tokens: { ...(saved?.clientId === clientId ? saved.tokens : {}), [resourceName]: tokens },
    };
    saveCredentials(file, store);
    const granted = tokens.scope.split(" ").filter(Boolean);
    const missing = scopes.filter((s) => !granted.includes(s));
    out(`Logged in to ${origin}: ${resourceName === "mcp" ? "MCP" : "REST API"} token with scopes ${granted.join(" ") || "(none)"}${tokens.expiresAt ? `, valid until ${tokens.expiresAt}` : ""}. Stored in ${file}.`);
    if (missing.length > 0) out(`Not granted: ${missing.join(" ")} (your role may not grant them, or they were unticked on the consent page).`);
    if (!tokens.refreshToken) out(`No refresh token was issued (${OFFLINE_ACCESS} not granted): run ${loginHint(origin, resourceName)} again when the token expires.`);
    out(`Use it in scripts: TOKEN=$(arbiter token${resourceName === "mcp" ? " --resource mcp" : ""})`);
    return EXIT.approved;
  } finally {
    listener.close();
  }
}

/** The stored access token for `origin`, renewed with the refresh token when it has expired (or is about to). */
async function currentAccessToken(file, store, origin, resourceName) {
  const entry = store.servers[origin];
  const tokens = entry?.tokens?.[resourceName];
  if (!tokens?.accessToken) fail(`Not logged in to ${origin}${resourceName === "mcp" ? " for MCP" : ""}: run ${loginHint(origin, resourceName)}.`);
  if (!tokens.expiresAt || Date.parse(tokens.expiresAt) - Date.now() > RENEW_BEFORE_MS) return tokens.accessToken;
  if (!tokens.refreshToken) fail(`The token for ${origin} expired at ${tokens.expiresAt} and there is no refresh token (${OFFLINE_ACCESS} was not granted): run ${loginHint(origin, resourceName)} again.`);
  const started = Date.now();
  const { status, data } = await postForm(entry.tokenEndpoint, { grant_type: "refresh_token", refresh_token: tokens.refreshToken, client_id: entry.clientId, resource: tokens.resource });
  if (status !== 200) {
    if (data?.error === "invalid_grant" || data?.error === "invalid_client") fail(`The login to ${origin} has expired or was revoked (${data.error}): run ${loginHint(origin, resourceName)} again.`);
    fail(`The server refused to renew the token (${oauthProblem(status, data)}).`);
  }
  entry.tokens[resourceName] = { resource: tokens.resource, ...storedTokens(data, started, tokens) };
  saveCredentials(file, store);
  return entry.tokens[resourceName].accessToken;
}

async function token(values, _positionals, env, out) {
  const file = credentialsFile(env);
  const store = loadCredentials(file);
  const resourceName = resourceNameOf(values);
  const origin = chosenServer(values, env, store);
  if (!origin) fail('Not logged in to any server: run "arbiter login --server https://arbiter.example.com" first.');
  out(await currentAccessToken(file, store, origin, resourceName));
  return EXIT.approved;
}

/** RFC 7009: the refresh token first (Arbiter then revokes the whole grant), then the access token itself. */
async function revokeAll(entry, tokens) {
  if (!entry.revocationEndpoint) return ["the server names no revocation endpoint"];
  const problems = [];
  for (const [value, hint] of [[tokens.refreshToken, "refresh_token"], [tokens.accessToken, "access_token"]]) {
    if (!value) continue;
    try {
      const { status, data } = await postForm(entry.revocationEndpoint, { token: value, token_type_hint: hint, client_id: entry.clientId });
      if (status !== 200) problems.push(`${hint}: ${oauthProblem(status, data)}`);
    } catch (error) {
      if (!(error instanceof Unverified)) throw error;
      problems.push(error.message);
    }
  }
  return problems;
}

async function logout(values, _positionals, env, out) {
  const file = credentialsFile(env);
  const store = loadCredentials(file);
  const origin = chosenServer(values, env, store);
  const entry = origin ? store.servers[origin] : undefined;
  const names = values.resource ? [resourceNameOf(values)] : Object.keys(entry?.tokens ?? {});
  const held = names.filter((name) => entry?.tokens?.[name]);
  if (!entry || held.length === 0) {
    out(`Not logged in${origin ? ` to ${origin}${values.resource ? ` for ${values.resource}` : ""}` : ""}: nothing to revoke.`);
    return EXIT.approved;
  }
  const problems = [];
  for (const name of held) {
    problems.push(...(await revokeAll(entry, entry.tokens[name])));
    delete entry.tokens[name];
  }
  // Forgotten locally even when the server could not be reached: the person asked for it to be gone.
  if (Object.keys(entry.tokens).length === 0) delete store.servers[origin];
  saveCredentials(file, store);
  if (problems.length > 0) fail(`Deleted the stored credentials for ${origin}, but the server did not confirm the revocation (${problems.join("; ")}): the tokens stay valid until they expire.`);
  out(`Logged out of ${origin}: ${held.join(" and ")} tokens revoked and deleted from ${file}${store.servers[origin] ? "" : Object.keys(store.servers).length === 0 ? " (file removed)" : ""}.`);
  return EXIT.approved;
}

const COMMANDS = { snapshot, contract, exchanges, check, diff, "build-failed": buildFailed, login, token, logout };
const SIGN_IN_COMMANDS = new Set(["login", "token", "logout"]);

export async function main(argv = process.argv.slice(2), env = process.env, out = (line) => console.log(line), err = (line) => console.error(line)) {
  let command;
  try {
    const { values, positionals } = options(argv);
    if (values.version) {
      out(VERSION);
      return EXIT.approved;
    }
    [command] = positionals;
    const rest = positionals.slice(1);
    if (values.help || !command) {
      out(HELP);
      return values.help ? EXIT.approved : EXIT.unverified;
    }
    const run = COMMANDS[command];
    if (!run) fail(`Unknown command "${command}". Commands: ${Object.keys(COMMANDS).join(", ")}. Run "arbiter --help".`);
    return await run(values, rest, env, out, err);
  } catch (error) {
    // login, token and logout verify nothing: their failures are not worded as a verdict.
    const prefix = SIGN_IN_COMMANDS.has(command) ? `arbiter ${command}:` : "arbiter: could not verify:";
    if (error instanceof Unverified) {
      err(`${prefix} ${error.message}`);
      return EXIT.unverified;
    }
    err(`${prefix} unexpected error: ${error?.message ?? error}`);
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
