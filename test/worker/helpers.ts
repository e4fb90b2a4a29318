/**
 * Test helpers that drive the real Worker (SELF) through OAuth like a client and a browser would. The MCP
 * helpers (mcpPost, initializeSession, rpc) also take a verified principal from harness.ts, which skips OAuth
 * and calls the /mcp handler directly.
 */
import { env } from "cloudflare:test";
import { SELF } from "./self";
import type { AuditRecord } from "../../src/audit/record";
import type { AppendResult, AuditDelivery } from "../../src/audit/store-rpc";
import { newCorrelationId } from "../../src/core/correlation";
import type { ArbiterMcpAgent } from "../../src/mcp/session/agent";
import { fetchAs, type Caller } from "./harness";

export const BASE = "http://localhost:8787";
export const MCP_URL = `${BASE}/mcp`;
export const API_RESOURCE = `${BASE}/api`;

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  client_name?: string;
}

export async function registerClient(metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const response = await SELF.fetch(`${BASE}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Test Client",
      redirect_uris: ["https://client.example/callback"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
    }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as RegisteredClient;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

/** A minimal cookie jar for one browser. */
export class CookieJar {
  private cookies = new Map<string, string>();
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (/max-age=0/i.test(header) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

export async function browserFetch(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header();
  if (cookie) headers.set("Cookie", cookie);
  const response = await SELF.fetch(url.startsWith("http") ? url : `${BASE}${url}`, {
    ...init,
    headers,
    redirect: "manual",
  });
  jar.store(response);
  return response;
}

export async function devSignIn(jar: CookieJar, user: string, returnTo = "/"): Promise<Response> {
  const form = new URLSearchParams({ user, return: returnTo });
  return browserFetch(jar, "/signin/dev", {
    method: "POST",
    body: form,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
  });
}

export function authorizeUrl(
  client: RegisteredClient,
  challenge: string,
  options: { scope?: string; resource?: string; state?: string; redirectUri?: string } = {},
): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: options.redirectUri ?? client.redirect_uris[0]!,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: options.state ?? "state-123",
    resource: options.resource ?? MCP_URL,
  });
  if (options.scope !== undefined) params.set("scope", options.scope);
  return `${BASE}/authorize?${params}`;
}

/** Extracts the consent handle from the consent page. */
export function consentHandle(page: string): string {
  const match = /name="handle" value="([^"]+)"/.exec(page);
  if (!match) throw new Error(`no consent handle in page: ${page.slice(0, 500)}`);
  return match[1]!.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)));
}

export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  token_type: string;
  expires_in: number;
}

export async function exchangeCode(
  client: RegisteredClient,
  code: string,
  verifier: string,
  redirectUri?: string,
  resource = MCP_URL,
): Promise<Response> {
  return SELF.fetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri ?? client.redirect_uris[0]!,
      client_id: client.client_id,
      code_verifier: verifier,
      resource,
    }),
  });
}

/**
 * The whole dance for a public client: register (unless given), sign in as `user`, approve consent with
 * `approve` scopes (default: every requested scope the role may grant, ticked or not), exchange the code. Returns the tokens.
 */
export async function obtainTokens(
  options: { user?: string; scope?: string; approve?: string[]; resource?: string; client?: RegisteredClient } = {},
): Promise<{ tokens: TokenSet; client: RegisteredClient; jar: CookieJar }> {
  const client = options.client ?? (await registerClient());
  const jar = new CookieJar();
  await devSignIn(jar, options.user ?? "ana");
  const { verifier, challenge } = await pkcePair();
  const resource = options.resource ?? MCP_URL;
  const page = await browserFetch(jar, authorizeUrl(client, challenge, { scope: options.scope, resource }));
  let location: string | null;
  if (page.status === 200) {
    const body = await page.text();
    const handle = consentHandle(body);
    // The member approves what the client asked for and the role may grant, sensitive scopes included.
    const offered = [...body.matchAll(/name="scope" value="([^"]+)" data-requested/g)].map((m) => m[1]!);
    const form = new URLSearchParams({ handle, decision: "approve" });
    for (const scope of options.approve ?? offered) form.append("scope", scope);
    const approved = await browserFetch(jar, "/authorize", {
      method: "POST",
      body: form,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
    });
    location = approved.headers.get("location");
  } else {
    location = page.headers.get("location");
  }
  if (!location) throw new Error("no redirect from authorize");
  const code = new URL(location).searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  const tokenResponse = await exchangeCode(client, code, verifier, undefined, resource);
  if (tokenResponse.status !== 200)
    throw new Error(`token exchange failed: ${tokenResponse.status} ${await tokenResponse.text()}`);
  return { tokens: (await tokenResponse.json()) as TokenSet, client, jar };
}

/** A JSON-RPC POST to /mcp with the headers Streamable HTTP requires; without a caller, anonymous through SELF. */
export async function mcpPost(
  token: Caller | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const init = {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
  return token ? fetchAs(token, MCP_URL, init) : SELF.fetch(MCP_URL, init);
}

export const MODERN_ERA = "2026-07-28";
/** The per-request envelope a 2026-07-28 request carries in `params._meta`. */
export const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN_ERA,
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * A 2026-07-28 (stateless) request to /mcp: the protocol version, method and name headers that era requires, and
 * the per-request envelope in `params._meta`.
 */
export async function modernPost(
  token: Caller,
  method: string,
  params: Record<string, unknown> = {},
  extra: Record<string, string> = {},
  id = 1,
): Promise<Response> {
  const named = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const headers: Record<string, string> = {
    "MCP-Protocol-Version": MODERN_ERA,
    "Mcp-Method": method,
    ...(named === undefined ? {} : { "Mcp-Name": named }),
    ...extra,
  };
  return mcpPost(token, { jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_ENVELOPE } }, headers);
}

/** Reads the JSON-RPC messages of an SSE (or JSON) response. */
export async function readRpc(response: Response): Promise<Array<Record<string, any>>> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("application/json")) return [JSON.parse(text)];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

/**
 * agents' id inside the Mcp-Session-Id a client is given (src/mcp/session/sealed-id.ts): the name of the session's
 * object (`streamable-http:<id>`) and what the contract store records for a subscribed session.
 */
export function sessionObjectId(session: string): string {
  const dot = session.lastIndexOf(".");
  if (dot <= 0) throw new Error(`not a sealed session id: ${session}`);
  return session.slice(0, dot);
}

/** The Durable Object of the session a client knows by `session` (its sealed Mcp-Session-Id). */
export function sessionObject(session: string): DurableObjectStub<ArbiterMcpAgent> {
  const namespace = env.MCP_OBJECT as unknown as DurableObjectNamespace<ArbiterMcpAgent>;
  return namespace.get(namespace.idFromName(`streamable-http:${sessionObjectId(session)}`));
}

export async function initializeSession(token: Caller, protocolVersion = "2025-11-25"): Promise<string> {
  const response = await mcpPost(token, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
  });
  if (response.status !== 200) throw new Error(`initialize failed: ${response.status} ${await response.text()}`);
  const sessionId = response.headers.get("mcp-session-id");
  await readRpc(response);
  if (!sessionId) throw new Error("no session id");
  await mcpPost(
    token,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion },
  );
  return sessionId;
}

export async function rpc(
  token: Caller,
  sessionId: string,
  method: string,
  params: unknown = {},
  id = 2,
): Promise<Record<string, any>> {
  const response = await mcpPost(
    token,
    { jsonrpc: "2.0", id, method, params },
    { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
  );
  const messages = await readRpc(response);
  const reply = messages.find((m) => m.id === id);
  if (!reply) throw new Error(`no reply to ${method}: ${response.status}`);
  return reply;
}

/** A successful `whoami` call's audit record, now, with a new correlation id: tests override what they vary. */
export function auditRecord(organizationId: string, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    correlationId: newCorrelationId(),
    time: new Date().toISOString(),
    organizationId,
    userId: "ana",
    clientId: "test-client",
    kind: "tool",
    target: "whoami",
    argumentsDigest: "",
    durationMs: 1,
    outcome: "ok",
    reason: "",
    ...overrides,
  };
}

/** Stores one record through anything that takes a batch (a trail, or one audit store's stub) and answers its result. */
export async function appendOne(
  store: { appendBatch(deliveries: AuditDelivery[]): Promise<AppendResult[]> },
  record: AuditRecord,
): Promise<AppendResult> {
  const [answer] = await store.appendBatch([{ deliveryId: null, record }]);
  return answer!;
}
