// Requests to the server: deadlines, the REST call with its error messages, OAuth form posts.
import { fail } from "./errors.mjs";
import { terminalText } from "./safe-text.mjs";
import { printable } from "./text.mjs";

export const OAUTH_TIMEOUT_MS = 30_000;

/** fetch with a deadline; a network failure or timeout becomes a message naming the server and the cause. */
export async function reach(url, init, timeoutMs) {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason = error.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (error.cause?.code ?? error.cause?.message ?? error.message);
    fail(`Cannot reach Arbiter at ${new URL(url).origin}: ${reason}.`);
  }
}

export async function request(config, method, path, body, contentType) {
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
    // Problems quote the uploaded document (paths, names): shown on stderr, where a terminal or a CI runner reads them.
    const problems = Array.isArray(error.details?.problems) ? `\n${error.details.problems.slice(0, 20).map((p) => `  - ${terminalText(p.path || "(document)")}: ${terminalText(p.message)}`).join("\n")}` : "";
    fail(`Arbiter answered ${response.status} ${terminalText(error.code ?? "")}: ${terminalText(error.message)}${problems}`);
  }
  const challenge = response.headers.get("www-authenticate");
  if (response.status === 403 && challenge) fail(`Arbiter refused the request (403): ${/error_description="([^"]*)"/.exec(challenge)?.[1] ?? "insufficient scope"}.`);
  fail(`Arbiter answered ${response.status} ${response.statusText || ""}`.trim() + ".");
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
  const response = await reach(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" }, body: new URLSearchParams(fields) }, OAUTH_TIMEOUT_MS);
  return { status: response.status, data: await jsonBody(response) };
}
