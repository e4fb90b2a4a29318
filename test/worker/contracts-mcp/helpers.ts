/**
 * Helpers for the MCP spec arbitration tests: REST uploads (CI side) and MCP tool calls (agent side). Each side
 * is a caller: a real token (restToken, connectAgent: OAuth through the Worker) or a verified principal
 * (ciPrincipal, connectPrincipal: harness.ts, straight to the handler).
 */
import { env } from "cloudflare:test";
import type { Env } from "../../../src/env";
import { fetchAs, mcpPrincipal, restPrincipal, type Caller, type Verified } from "../harness";

export type { Caller } from "../harness";
import { API_RESOURCE, BASE, initializeSession, obtainTokens, rpc } from "../helpers";

export const API = `${BASE}/api/v1`;

export const workerEnv = env as unknown as Env;

const CI_SCOPES = "contracts.read contracts.write snapshots.write";

export async function restToken(user: string, scope = CI_SCOPES): Promise<string> {
  const { tokens } = await obtainTokens({ user, scope, resource: API_RESOURCE });
  return tokens.access_token;
}

export async function mcpToken(user: string, scope = "contracts.read"): Promise<string> {
  const { tokens } = await obtainTokens({ user, scope });
  return tokens.access_token;
}

/** The CI side as a verified principal of the REST API (no OAuth round trips), optionally of another organization. */
export function ciPrincipal(user: string, scope = CI_SCOPES, organizationId?: string): Verified {
  return restPrincipal(user, scope, organizationId ? { organizationId } : {});
}

/** An agent: its caller (an MCP token or a verified principal) and an initialized session. */
export interface Agent {
  token: Caller;
  session: string;
}

/** An agent with a real MCP token (OAuth through the Worker). */
export async function connectAgent(user: string, scope = "contracts.read"): Promise<Agent> {
  const token = await mcpToken(user, scope);
  return { token, session: await initializeSession(token) };
}

/** An agent whose verified principal goes straight to the /mcp handler: a new client, as connectAgent registers one. */
export async function connectPrincipal(
  user: string,
  scope = "contracts.read",
  organizationId?: string,
): Promise<Agent> {
  const token = mcpPrincipal(user, scope, organizationId ? { organizationId } : {});
  return { token, session: await initializeSession(token) };
}

async function post(
  token: Caller,
  path: string,
  body: BodyInit,
  contentType: string,
): Promise<{ status: number; body: any }> {
  const response = await fetchAs(token, `${API}${path}`, {
    method: "POST",
    headers: { "Content-Type": contentType },
    body,
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

export async function uploadContract(token: Caller, project: string, document: object, label?: string): Promise<any> {
  const query = label ? `?label=${encodeURIComponent(label)}` : "";
  const result = await post(
    token,
    `/projects/${project}/contracts${query}`,
    JSON.stringify(document),
    "application/json",
  );
  if (result.status !== 201) throw new Error(`contract upload failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

export async function uploadSnapshot(token: Caller, project: string, document: object, commit: string): Promise<any> {
  const result = await post(
    token,
    `/projects/${project}/snapshots?commit=${commit}&branch=main`,
    JSON.stringify(document),
    "application/json",
  );
  if (result.status !== 201) throw new Error(`snapshot upload failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** Recorded traffic (a HAR object or NDJSON text) uploaded from CI. */
export async function uploadExchanges(
  token: Caller,
  project: string,
  recording: object | string,
  contentType = "application/json",
): Promise<any> {
  const result = await post(
    token,
    `/projects/${project}/exchanges`,
    typeof recording === "string" ? recording : JSON.stringify(recording),
    contentType,
  );
  if (result.status !== 201)
    throw new Error(`exchanges upload failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

export async function recordFailedBuild(
  token: Caller,
  project: string,
  commit: string,
  log: string,
  details: { branch?: string; runUrl?: string } = {},
): Promise<any> {
  const result = await post(
    token,
    `/projects/${project}/builds`,
    JSON.stringify({ commit, log, ...details }),
    "application/json",
  );
  if (result.status !== 201) throw new Error(`build record failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

let nextId = 100;

export async function callTool(
  agent: Agent,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const reply = await rpc(agent.token, agent.session, "tools/call", { name, arguments: args }, nextId++);
  if (reply.error) throw new Error(`tools/call ${name} answered a JSON-RPC error: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

export async function request(agent: Agent, method: string, params: unknown = {}): Promise<Record<string, any>> {
  return rpc(agent.token, agent.session, method, params, nextId++);
}

export function text(result: Record<string, any>): string {
  return (result.content as Array<{ text: string }>).map((part) => part.text).join("\n");
}
