/**
 * Composition only: routes each request to the authorization server, a protected resource (/mcp, the REST
 * API) or the web pages. Behaviour lives in the modules it names.
 */
import { type Env, SessionSecretMissing } from "./env";
import { apiResourceHandler } from "./api";
import { CLI_PATH, serveCli } from "./api/cli.route";
import { handleOperator } from "./api/operator.routes";
import { failureProblem } from "./core/problem";
import { Failure } from "./core/failure";
import { withRevocationAudit } from "./oauth/revocation-audit";
import { handleAuthorize } from "./auth/authorize";
import { withOrganizationGate } from "./organizations/gate";
import { handleSignInRoutes } from "./auth/routes";
import { handleInvitationRoutes } from "./auth/invitations";
import { mcpResourceHandler } from "./mcp/http";
import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "./mcp/jsonrpc-error";
import { getCatalog, prepareCatalog } from "./mcp/deployment-catalog";
import {
  OPENID_CONFIGURATION,
  openIdConfiguration,
  ROOT_RESOURCE_METADATA,
  rootResourceMetadata,
} from "./oauth/discovery-aliases";
import { wrongOriginAnswer } from "./oauth/public-url-guard";
import { refreshWideningRefusal } from "./oauth/refresh-scope";
import { withBoundedOAuthKv } from "./oauth/bounded-kv";
import { guardRegistration } from "./oauth/registration-guard";
import { getOAuthServers, OAUTH_PATHS } from "./oauth/servers";
import { withUnauthorizedBody } from "./oauth/unauthorized-body";
import { getPolicy } from "./policy/load";
import { errorPage } from "./lib/html";
import { handleConsole } from "./web/console/routes";
import { landingPage } from "./web/landing";
import { logError } from "./lib/log";
import { forbidden, foreignOriginOrHost } from "./auth/origin-guard";
import { ARBITER_VERSION } from "./version";

export { ArbiterMcpAgent } from "./mcp/session/agent";
export { ListenHub } from "./mcp/stateless/listen-hub";
export { ToleranceCounter } from "./mcp/compat/counter-store";
export { RateLimitCoordinator } from "./ratelimit/coordinator";
export { AuditLog } from "./audit/store";
export { ContractStore } from "./contracts/store/durable-object";
export { OrganizationDirectory } from "./directory/store";
export { OrganizationView } from "./directory/view";
export { GrantSweeper } from "./oauth/grant-sweeper";
export { OrganizationExporter } from "./organizations/exporter";

// Built while the isolate starts rather than on its first request (deployment-catalog.ts says why and what it costs).
prepareCatalog();

const PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource";
/** Both protected resources refuse organizations that are suspended or deleted (src/organizations/gate.ts). */
const resourceHandlers = {
  mcp: withOrganizationGate(mcpResourceHandler),
  api: withOrganizationGate(apiResourceHandler),
};

async function route(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  const servers = getOAuthServers(env, resourceHandlers);

  if (path === "/health") {
    getPolicy();
    return Response.json(
      { status: "ok", service: "arbiter", version: ARBITER_VERSION },
      { headers: { "Cache-Control": "no-store" } },
    );
  }
  if (path === "/" && request.method === "GET") return landingPage(env);
  if (path === CLI_PATH) return serveCli(request);
  const operator = await handleOperator(request, env);
  if (operator) return operator;

  if (path === "/mcp" || path.startsWith("/mcp/")) {
    const refusal = foreignOriginOrHost(request, env);
    if (refusal) return forbidden(refusal);
  }
  const misdirected = wrongOriginAnswer(request, env);
  if (misdirected) return misdirected;

  if (path === "/mcp" || path.startsWith("/mcp/") || path === `${PROTECTED_RESOURCE_METADATA}/mcp`) {
    return withUnauthorizedBody(request, await servers.mcp.fetch(request, env, ctx), "mcp");
  }
  if (path === ROOT_RESOURCE_METADATA)
    return rootResourceMetadata(request, (rewritten) => servers.mcp.fetch(rewritten, env, ctx));
  if (path === OPENID_CONFIGURATION)
    return openIdConfiguration(request, (rewritten) => servers.authorizationServer.fetch(rewritten, env, ctx));
  if (path === OAUTH_PATHS.token) {
    const widening = await refreshWideningRefusal(request, env);
    if (widening) return widening;
  }
  if (path === "/api" || path.startsWith("/api/") || path === `${PROTECTED_RESOURCE_METADATA}/api`) {
    return withUnauthorizedBody(request, await servers.api.fetch(request, env, ctx), "api");
  }
  if (path === "/chat") {
    // /chat belongs to the REST resource; it is served there as /api/chat.
    const rewritten = new URL(request.url);
    rewritten.pathname = "/api/chat";
    return withUnauthorizedBody(request, await servers.api.fetch(new Request(rewritten, request), env, ctx), "api");
  }
  if (path === OAUTH_PATHS.authorize) return handleAuthorize(request, env, servers);
  if (path === OAUTH_PATHS.register)
    return guardRegistration(request, (checked) => servers.authorizationServer.fetch(checked, env, ctx));
  if (path === "/admin" || path.startsWith("/admin/"))
    return handleConsole(request, env, servers.authorizationServer.getOAuthApi(env), () => [
      ...getCatalog().tools.keys(),
    ]);

  const invitation = await handleInvitationRoutes(request, env);
  if (invitation) return invitation;
  const signIn = await handleSignInRoutes(request, env, (clientId) =>
    servers.authorizationServer.getOAuthApi(env).lookupClient(clientId),
  );
  if (signIn) return signIn;

  // Token revocation (RFC 7009) is served by the library; the wrapper audits what it actually revoked.
  const fromAuthorizationServer = await withRevocationAudit(request, env, servers, (forwarded) =>
    servers.authorizationServer.fetch(forwarded, env, ctx),
  );
  if (fromAuthorizationServer.status !== 404 || path.startsWith("/.well-known/") || path.startsWith("/oauth/"))
    return fromAuthorizationServer;
  if (request.headers.get("accept")?.includes("text/html"))
    return errorPage(404, "Not found", "There is no page here.");
  return failureProblem(new Failure("not_found", `Nothing is served at ${path}.`));
}

/** A deployment missing its SESSION_SECRET, said in the form the caller reads: JSON-RPC on /mcp, else a page. */
function notConfigured(request: Request, message: string): Response {
  const path = new URL(request.url).pathname;
  if (path === "/mcp" || path.startsWith("/mcp/"))
    return jsonRpcErrorResponse(503, {
      code: JSON_RPC_ERROR.internalError,
      message: `Server not configured: ${message}`,
      data: { code: "server_not_configured" },
    });
  return errorPage(503, "Server not configured", message);
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    try {
      // Over-long client ids and tokens read as unknown, not as KV errors (bounded-kv.ts).
      return await route(request, withBoundedOAuthKv(env), ctx);
    } catch (error) {
      if (error instanceof SessionSecretMissing) {
        logError("configuration error", { error });
        return notConfigured(request, error.message);
      }
      logError("unhandled error", { path: new URL(request.url).pathname, error });
      return failureProblem(
        new Failure(
          "internal",
          "Arbiter hit an unexpected error. Try again; the operator can find it in the logs.",
          {},
          "internal_error",
        ),
      );
    }
  },
} satisfies ExportedHandler<Env>;
