// The stored credentials of "arbiter login": the file, the server chosen, renewing an expired token.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fail } from "./errors.mjs";
import { postForm } from "./http.mjs";
import { oauthProblem, storedTokens } from "./oauth.mjs";
import { OFFLINE_ACCESS, loginHint } from "./scopes.mjs";

/**
 * Where the stored tokens of one server are kept apart: the REST API (CI commands), /chat (the same audience as
 * the REST API, but its own token, so a /chat login with order scopes never replaces the REST token), and MCP.
 */
const RESOURCE_NAMES = ["api", "chat", "mcp"];
/** The server's protected resource each slot's token is for (/chat is served by the REST API's audience). */
export const RESOURCE_PATH = Object.freeze({ api: "api", chat: "api", mcp: "mcp" });

// Renew a little before the expiry, so a token handed to a script does not expire on its way.
const RENEW_BEFORE_MS = 60_000;

/** $XDG_CONFIG_HOME/arbiter/credentials.json, else ~/.config/arbiter (%APPDATA%\arbiter on Windows). */
export function credentialsFile(env) {
  const home = env.HOME || env.USERPROFILE || homedir();
  const base = env.XDG_CONFIG_HOME || (process.platform === "win32" && env.APPDATA) || join(home, ".config");
  return join(base, "arbiter", "credentials.json");
}

/**
 * { servers: { <origin>: { issuer, clientId, tokenEndpoint, revocationEndpoint, tokens: { api?, chat?, mcp? } } } };
 * each token entry names the client it was issued to (older files: the server's clientId).
 */
export function loadCredentials(file) {
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
export function saveCredentials(file, store) {
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
export function serverOrigin(url, flag) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    fail(`${flag} is not a URL: ${url} (e.g. https://arbiter.example.com).`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback))
    fail(`${flag} must be an https URL (plain http only for localhost): ${url}`);
  return parsed.origin;
}

export function resourceNameOf(values) {
  const name = values.resource ?? "api";
  if (!RESOURCE_NAMES.includes(name))
    fail(
      `--resource must be api (the REST API: the CI commands), chat (/chat) or mcp (the MCP server), not "${name}".`,
    );
  return name;
}

/** The server named by --server / --url / ARBITER_URL, else the only one logged in to. */
export function chosenServer(values, env, store) {
  const url = values.server ?? values.url ?? env.ARBITER_URL;
  if (url) return serverOrigin(url, values.server ? "--server" : values.url ? "--url" : "ARBITER_URL");
  const known = Object.keys(store.servers);
  if (known.length === 1) return known[0];
  if (known.length === 0) return undefined;
  fail(`Logged in to several servers (${known.join(", ")}): pass --server to choose one.`);
}

/** The stored access token for `origin`, renewed with the refresh token when it has expired (or is about to). */
export async function currentAccessToken(file, store, origin, resourceName) {
  const entry = store.servers[origin];
  const tokens = entry?.tokens?.[resourceName];
  if (!tokens?.accessToken)
    fail(
      `Not logged in to ${origin}${resourceName === "api" ? "" : ` for ${resourceName === "mcp" ? "MCP" : "/chat"}`}: run ${loginHint(origin, resourceName)}.`,
    );
  if (!tokens.expiresAt || Date.parse(tokens.expiresAt) - Date.now() > RENEW_BEFORE_MS) return tokens.accessToken;
  if (!tokens.refreshToken)
    fail(
      `The token for ${origin} expired at ${tokens.expiresAt} and there is no refresh token (${OFFLINE_ACCESS} was not granted): run ${loginHint(origin, resourceName)} again.`,
    );
  const started = Date.now();
  const { status, data } = await postForm(entry.tokenEndpoint, {
    grant_type: "refresh_token",
    refresh_token: tokens.refreshToken,
    client_id: tokens.clientId ?? entry.clientId,
    resource: tokens.resource,
  });
  if (status !== 200) {
    if (data?.error === "invalid_grant" || data?.error === "invalid_client")
      fail(
        `The login to ${origin} has expired or was revoked (${data.error}): run ${loginHint(origin, resourceName)} again.`,
      );
    fail(`The server refused to renew the token (${oauthProblem(status, data)}).`);
  }
  entry.tokens[resourceName] = {
    resource: tokens.resource,
    ...(tokens.clientId ? { clientId: tokens.clientId } : {}),
    ...storedTokens(data, started, tokens),
  };
  saveCredentials(file, store);
  return entry.tokens[resourceName].accessToken;
}
