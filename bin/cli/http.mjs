// Requests to the server: deadlines, the REST call with its error messages, OAuth form posts.
import { fail } from "./errors.mjs";
import { terminalText } from "./safe-text.mjs";
import { missingScopeAdvice } from "./scopes.mjs";
import { closest } from "./suggest.mjs";
import { printable } from "./text.mjs";

export const OAUTH_TIMEOUT_MS = 30_000;

/** fetch with a deadline; a network failure or timeout becomes a message naming the server and the cause. */
export async function reach(url, init, timeoutMs) {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason =
      error.name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (error.cause?.code ?? error.cause?.message ?? error.message);
    fail(`Cannot reach Arbiter at ${new URL(url).origin}: ${reason}.`);
  }
}

export async function request(config, method, path, body, contentType) {
  const response = await reach(
    `${config.base}${path}`,
    {
      method,
      headers: {
        Authorization: `Bearer ${config.token}`,
        Accept: "application/json",
        ...(contentType ? { "Content-Type": contentType } : {}),
      },
      body,
    },
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
  const said =
    response.status === 401 && typeof data?.detail === "string" ? ` Arbiter says: ${printable(data.detail)}` : "";
  if (response.status === 401 && config.fromLogin)
    fail(
      `Arbiter refused the token from "arbiter login" (401): it was revoked or is not for the REST API. Run "arbiter login --server ${config.base}" again.${said}`,
    );
  if (response.status === 401)
    fail(
      `Arbiter refused the credentials (401): the CI key is unknown, revoked or expired, or the token is not for the REST API. Ask an organization admin for a new key.${said}`,
    );
  if (response.status === 403) {
    const missing = missingScopesOf(data, response.headers.get("www-authenticate"));
    if (missing.length > 0 && config.fromLogin)
      fail(
        `Arbiter refused the request (403): ${missingScopeAdvice(config.base, config.command ?? "This command", missing, config.granted ?? [])}`,
      );
    if (missing.length > 0)
      fail(
        `Arbiter refused the request (403): ${config.command ?? "This command"} needs the scope${missing.length === 1 ? "" : "s"} ${missing.join(" ")}, which this token or CI key does not carry. Ask an organization admin for a CI key with ${missing.join(" ")} (console: CI keys), or on your own machine use arbiter login.`,
      );
  }
  const error = data?.error;
  if (response.status === 404 && error?.code === "unknown_project" && !error.details?.suggestion) {
    const suggestion = await projectSuggestion(config);
    if (suggestion)
      fail(
        `Arbiter answered 404 unknown_project: there is no project "${printable(config.project, 100)}"; did you mean "${suggestion}"? (--project ${suggestion})`,
      );
  }
  if (error?.message) {
    // Problems quote the uploaded document (paths, names): shown on stderr, where a terminal or a CI runner reads them.
    const problems = Array.isArray(error.details?.problems)
      ? `\n${error.details.problems
          .slice(0, 20)
          .map((p) => `  - ${terminalText(p.path || "(document)")}: ${terminalText(p.message)}`)
          .join("\n")}`
      : "";
    fail(
      `Arbiter answered ${response.status} ${terminalText(error.code ?? "")}: ${terminalText(error.message)}${problems}`,
    );
  }
  const challenge = response.headers.get("www-authenticate");
  if (response.status === 403 && challenge)
    fail(
      `Arbiter refused the request (403): ${/error_description="([^"]*)"/.exec(challenge)?.[1] ?? "insufficient scope"}.`,
    );
  fail(`${`Arbiter answered ${response.status} ${response.statusText || ""}`.trim()}.`);
}

/** The scopes a 403 names as missing: the problem body's details, else the step-up challenge's scope. */
function missingScopesOf(data, challenge) {
  const listed = data?.details?.missingScopes ?? data?.error?.details?.missingScopes;
  if (Array.isArray(listed)) return listed.filter((s) => typeof s === "string").map((s) => printable(s, 64));
  const scope = challenge ? /scope="([^"]*)"/.exec(challenge)?.[1] : undefined;
  return scope
    ? scope
        .split(" ")
        .filter(Boolean)
        .map((s) => printable(s, 64))
    : [];
}

/** A project close to the mistyped one, from the projects this token may see; nothing when it may not list them. */
async function projectSuggestion(config) {
  try {
    const response = await fetch(`${config.base}/api/v1/projects`, {
      headers: { Authorization: `Bearer ${config.token}`, Accept: "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return undefined;
    const names = ((await response.json())?.projects ?? []).map((p) => p?.name).filter((n) => typeof n === "string");
    const found = closest(
      config.project,
      names.filter((n) => n !== config.project),
    );
    return found === undefined ? undefined : printable(found, 100);
  } catch {
    return undefined;
  }
}

export const projectPath = (config, suffix) => `/api/v1/projects/${encodeURIComponent(config.project)}${suffix}`;

export function query(entries) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

export async function jsonBody(response) {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

export async function postForm(url, fields) {
  const response = await reach(
    url,
    {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams(fields),
    },
    OAUTH_TIMEOUT_MS,
  );
  return { status: response.status, data: await jsonBody(response) };
}
