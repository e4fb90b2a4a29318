/**
 * The 2026-07-28 lane of /mcp: stateless requests served by createMcpHandler (agents/mcp/server, SDK v2), one
 * server per request built from the catalog for the verified principal. It runs behind the same front as the
 * session lane (http.ts: OAuth token verified, Origin/Host checked, body bounded, 403 step-up), so the
 * handler's own Origin check is turned off and CORS is left to the front. subscriptions/listen requests are
 * long-lived streams and go to the organization's ListenHub, which keeps them open and feeds them changes.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { CORRELATION_HEADER } from "../../core/correlation";
import type { Env } from "../../env";
import {
  BENCH_BARE_TOOL,
  benchBareEnabled,
  benchBareResult,
  benchGovernedTool,
  toolsServedBesideCatalog,
} from "../bench-bare";
import { Failure } from "../../core/failure";
import type { Principal } from "../../core/principal";
import { pipelineDepsFor } from "../deps";
import { listableScopes } from "../catalog-view";
import { encodePrincipal, PRINCIPAL_HEADER } from "../principal-header";
import { getCatalog } from "../deployment-catalog";
import { resolvedTarget } from "../governed-capabilities";
import { resourceLookup } from "../resource-lookup";
import { jsonOnlySchema } from "./json-schema";
import { createStatelessServer, registerGovernedTool, type StatelessRuntime } from "./server";

export const LISTEN_METHOD = "subscriptions/listen";

/** Options shared by the Worker's handler and the ListenHub's: the front already did Origin, Host and CORS. */
export const STATELESS_HANDLER_OPTIONS = {
  legacy: "reject",
  allowedOriginHostnames: "*",
  corsOptions: false,
} as const;

function isListen(parsedBody: unknown): boolean {
  return (
    typeof parsedBody === "object" &&
    parsedBody !== null &&
    (parsedBody as { method?: unknown }).method === LISTEN_METHOD
  );
}

/** The SDK v2 AuthInfo for a principal the front verified; the token itself never goes past the front. */
export function authInfoOf(
  principal: Principal,
  correlationId: string,
): { token: string; clientId: string; scopes: string[]; extra: { principal: Principal; correlationId: string } } {
  return {
    token: "verified-by-front",
    clientId: principal.clientId,
    scopes: [...principal.scopes],
    extra: { principal, correlationId },
  };
}

function withHostHeader(request: Request): Request {
  if (request.headers.has("host")) return request;
  const headers = new Headers(request.headers);
  headers.set("host", new URL(request.url).host);
  return new Request(request, { headers });
}

/**
 * bench:mcp's ungoverned baseline in this lane (bench-bare.ts): registered beside the catalog's tools, so it is
 * served by the same handler and server, only when ARBITER_BENCH_BARE is on with a loopback PUBLIC_URL.
 */
function withBenchBare(
  server: McpServer,
  env: Env,
  runtime: StatelessRuntime,
  onlyTool: string | undefined,
): McpServer {
  if (!benchBareEnabled(env)) return server;
  if (onlyTool === undefined || onlyTool === benchGovernedTool.name)
    registerGovernedTool(server, benchGovernedTool, runtime);
  if (onlyTool === undefined || onlyTool === BENCH_BARE_TOOL) {
    const anything = jsonOnlySchema({ type: "object" });
    server.registerTool(
      BENCH_BARE_TOOL,
      {
        description: "Benchmark baseline: no scope check, rate limit or audit.",
        inputSchema: anything,
        outputSchema: anything,
      },
      // biome-ignore lint/plugin: SDK adapter: the SDK 2.x handler type is generic in a schema this baseline tool does not declare
      (async () => benchBareResult()) as never,
    );
  }
  return server;
}

/** The tool a request calls when it is one tools/call of a tool this deployment serves; otherwise undefined. */
export function onlyToolCalled(parsedBody: unknown, env: Env): string | undefined {
  if (typeof parsedBody !== "object" || parsedBody === null || Array.isArray(parsedBody)) return undefined;
  const message = parsedBody as { method?: unknown; params?: { name?: unknown } };
  const name = message.method === "tools/call" ? message.params?.name : undefined;
  if (typeof name !== "string") return undefined;
  return getCatalog().tools.has(name) || toolsServedBesideCatalog(env).has(name) ? name : undefined;
}

/**
 * Serves one 2025-era request that came without a session (the compatibility front's "sessionless-session-request",
 * compat/tolerances.ts) with the SDK's stateless legacy serving: a fresh server from the same factory and the same
 * governed core as the 2026-07-28 requests, answering this request only.
 */
export async function serveSessionless(
  incoming: Request,
  parsedBody: unknown,
  env: Env,
  principal: Principal,
  correlationId: string,
): Promise<Response> {
  return servedByFreshServer(withHostHeader(incoming), parsedBody, env, principal, correlationId, "stateless");
}

/** The URI of a resources/read request, or undefined for any other message. */
function resourceReadUri(parsedBody: unknown): string | undefined {
  if (typeof parsedBody !== "object" || parsedBody === null || Array.isArray(parsedBody)) return undefined;
  const message = parsedBody as { method?: unknown; params?: { uri?: unknown } };
  return message.method === "resources/read" && typeof message.params?.uri === "string"
    ? message.params.uri
    : undefined;
}

/**
 * A resources/read of a URI that no resource or template matches never reaches the catalog in this lane: the SDK
 * answers it with a bare "Resource not found: <uri>". The session lane's message replaces it (what is missing, where
 * to look, the correlation id), with the code the SDK chose (-32602, as the 2026-07-28 revision asks).
 */
async function withResourceHelp(response: Response, uri: string, correlationId: string): Promise<Response> {
  const failure = resolvedTarget(resourceLookup(getCatalog())(uri), uri);
  if (!(failure instanceof Failure)) return response;
  if (response.status !== 200 || !(response.headers.get("content-type") ?? "").startsWith("application/json"))
    return response;
  const text = await response.text();
  let answer: { error?: { message?: unknown; data?: Record<string, unknown> } };
  try {
    answer = JSON.parse(text);
  } catch {
    return new Response(text, response);
  }
  const error = answer.error;
  if (error?.data?.uri !== uri || error.data.code !== undefined) return new Response(text, response);
  error.message = failure.message;
  error.data = { code: failure.code, correlationId, ...failure.details };
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(answer), { status: response.status, headers });
}

/** One request answered by a server built for it from the catalog, governed like every other. */
async function servedByFreshServer(
  request: Request,
  parsedBody: unknown,
  env: Env,
  principal: Principal,
  correlationId: string,
  legacy: "reject" | "stateless",
): Promise<Response> {
  const deps = pipelineDepsFor(env, "worker-request");
  const onlyTool = onlyToolCalled(parsedBody, env);
  // A call of one tool lists nothing: only a server with the whole catalog needs the organization's role caps.
  const grantable = onlyTool === undefined ? await listableScopes(env, principal) : undefined;
  const runtime: StatelessRuntime = { env, principal, correlationId, ...deps, ...(grantable ? { grantable } : {}) };
  const handler = createMcpHandler(
    () => withBenchBare(createStatelessServer(getCatalog(), runtime, onlyTool), env, runtime, onlyTool),
    { ...STATELESS_HANDLER_OPTIONS, legacy },
  );
  const response = await handler.fetch(request, { authInfo: authInfoOf(principal, correlationId), parsedBody });
  const uri = resourceReadUri(parsedBody);
  return uri === undefined ? response : withResourceHelp(response, uri, correlationId);
}

/** Serves one 2026-07-28 request (`request` has no Authorization header; `parsedBody` is its parsed body). */
export async function serveStateless(
  incoming: Request,
  parsedBody: unknown,
  env: Env,
  principal: Principal,
  correlationId: string,
): Promise<Response> {
  // The front checked Host and Origin already (auth/origin-guard.ts); the handler repeats a Host check that needs
  // the header, which a Request built inside the runtime does not carry.
  const request = withHostHeader(incoming);
  if (isListen(parsedBody)) {
    const headers = new Headers(request.headers);
    headers.set(PRINCIPAL_HEADER, encodePrincipal(principal));
    headers.set(CORRELATION_HEADER, correlationId);
    const hub = env.LISTEN_HUB.get(env.LISTEN_HUB.idFromName(principal.organizationId));
    return hub.fetch(
      new Request(request.url, { method: "POST", headers, body: JSON.stringify(parsedBody), signal: request.signal }),
    );
  }
  return servedByFreshServer(request, parsedBody, env, principal, correlationId, STATELESS_HANDLER_OPTIONS.legacy);
}
