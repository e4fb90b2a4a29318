// What a server command needs: server, token, project, build metadata, and the file to send.
import { readFileSync } from "node:fs";
import { credentialsFile, currentAccessToken, loadCredentials } from "./credentials.mjs";
import { fail } from "./errors.mjs";
import { missingScopeAdvice } from "./scopes.mjs";

function githubRunUrl(env) {
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID)
    return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  return env.CI_JOB_URL || undefined;
}

/** The server: --url / --server / ARBITER_URL, else (with no --token) the one server "arbiter login" stored. */
function serverOf(values, env, token) {
  const url = values.url ?? values.server ?? env.ARBITER_URL;
  if (url) {
    try {
      return new URL(url).origin;
    } catch {
      fail(`${values.url ? "--url" : values.server ? "--server" : "ARBITER_URL"} is not a URL: ${url}`);
    }
  }
  const logins = token ? [] : Object.keys(loadCredentials(credentialsFile(env)).servers);
  if (logins.length === 1) return logins[0];
  if (logins.length > 1) fail(`Logged in to several servers (${logins.join(", ")}): pass --server to choose one.`);
  fail(
    "No server: pass --server (or --url), or set ARBITER_URL (e.g. https://arbiter.example.com). After arbiter login to one server, commands use that one.",
  );
}

/**
 * `command` is what the person asked for (e.g. "arbiter contract") and `needs` the scopes its route requires: a
 * login token that lacks one is stopped here with the exact login to run, before anything is sent.
 */
export async function settings(values, env, command = "This command", needs = [], { needsProject = true } = {}) {
  const project = values.project ?? env.ARBITER_PROJECT;
  let token = values.token ?? env.ARBITER_TOKEN;
  const base = serverOf(values, env, token);
  let fromLogin = false;
  let granted = [];
  if (!token) {
    // On a person's machine: the REST token that "arbiter login" stored for this server, renewed if needed.
    const file = credentialsFile(env);
    const store = loadCredentials(file);
    if (store.servers[base]?.tokens?.api) {
      token = await currentAccessToken(file, store, base, "api");
      fromLogin = true;
      granted = String(store.servers[base].tokens.api.scope ?? "")
        .split(" ")
        .filter(Boolean);
      const missing = needs.filter((scope) => !granted.includes(scope));
      if (missing.length > 0) fail(missingScopeAdvice(base, command, missing, granted));
    }
  }
  if (!token)
    fail(
      `No credentials: pass --token or set ARBITER_TOKEN (a CI key from your organization admin), or run "arbiter login --server ${base}" on your own machine.`,
    );
  if (!project && needsProject) fail("No project: pass --project or set ARBITER_PROJECT.");
  const timeout = values.timeout === undefined ? 120 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) fail("--timeout must be a positive number of seconds.");
  return {
    base,
    token,
    fromLogin,
    granted,
    command,
    project,
    commit: values.commit ?? env.GITHUB_SHA ?? env.CI_COMMIT_SHA,
    branch: values.branch ?? (env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || undefined),
    runUrl: values["run-url"] ?? githubRunUrl(env),
    timeoutMs: timeout * 1000,
  };
}

export function readInput(path) {
  if (!path) fail("Name the OpenAPI document to upload (a file path, or - for standard input).");
  try {
    return readFileSync(path === "-" ? 0 : path);
  } catch (error) {
    fail(`Cannot read ${path}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
  }
}

export function contentTypeOf(path, bytes) {
  if (/\.ya?ml$/i.test(path)) return "application/yaml";
  if (/\.json$/i.test(path)) return "application/json";
  const first = bytes.subarray(0, 64).toString("utf8").trimStart()[0];
  return first === "{" || first === "[" ? "application/json" : "application/yaml";
}

export function versionOption(values, name) {
  const text = values[name];
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(text)) fail(`--${name} must be a contract version number such as 3, got "${text}".`);
  return text;
}

/** Recorded traffic: HAR (JSON) or NDJSON by extension; anything else lets the server tell from the content. */
export function recordingType(path) {
  if (/\.(ndjson|jsonl)$/i.test(path)) return "application/x-ndjson";
  if (/\.(har|json)$/i.test(path)) return "application/json";
  return "application/octet-stream";
}
