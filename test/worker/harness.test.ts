/**
 * The harness stays faithful to what it stands in for: a verified principal carries exactly what the resource
 * server would put in ctx.props and ctx.auth for a real token of the same grant (props, scopes, audience), and
 * its placeholder is no token the front door accepts.
 */
import { env } from "cloudflare:test";
import { SELF } from "./self";
import { describe, expect, it } from "vitest";
import { apiResourceHandler } from "../../src/api";
import type { Env } from "../../src/env";
import { mcpResourceHandler } from "../../src/mcp/http";
import { getOAuthServers } from "../../src/oauth/servers";
import { callHandler, verifiedPrincipal, type PrincipalOptions } from "./harness";
import { API_RESOURCE, MCP_URL, obtainTokens } from "./helpers";

const workerEnv = env as unknown as Env;

/** What the resource server validates a real token into (the same call OAuthResourceServer makes). */
async function validated(token: string, resource: string) {
  const servers = getOAuthServers(workerEnv, { mcp: mcpResourceHandler, api: apiResourceHandler });
  return servers.authorizationServer.validateToken(resource, token, workerEnv);
}

const cases: Array<{ resource: "mcp" | "api"; options: PrincipalOptions; why: string }> = [
  {
    resource: "mcp",
    options: { user: "ana", scope: "orders.read contracts.read" },
    why: "an admin gets what it asks for",
  },
  {
    resource: "mcp",
    options: { user: "mia", scope: "orders.read audit.read" },
    why: "a member never gets a scope its role cannot grant",
  },
  { resource: "mcp", options: { user: "dev" }, why: "no scope asked: the resource's baseline" },
  {
    resource: "api",
    options: { user: "ana", scope: "contracts.read keys.admin orders.write" },
    why: "a REST grant keeps only REST scopes",
  },
  {
    resource: "mcp",
    options: { user: "ana", scope: "orders.read keys.admin" },
    why: "an MCP grant keeps only MCP scopes",
  },
  {
    resource: "api",
    options: { user: "gus", scope: "contracts.read", approve: ["contracts.read", "contracts.write"] },
    why: "ticked scopes replace the requested ones",
  },
];

describe("verified principals", () => {
  it.each(cases)("match a real token of the same grant: $why", async ({ resource, options }) => {
    const audience = resource === "mcp" ? MCP_URL : API_RESOURCE;
    const { tokens, client } = await obtainTokens({
      user: options.user,
      scope: options.scope,
      approve: options.approve,
      resource: audience,
    });
    const real = await validated(tokens.access_token, audience);
    expect(real).not.toBeNull();
    const principal = verifiedPrincipal(resource, { ...options, clientId: client.client_id });
    expect(principal.props).toEqual(real!.props);
    expect([...principal.auth.scope].sort()).toEqual([...(real!.scope ?? [])].sort());
    expect(principal.auth).toMatchObject({ audience: real!.audience, clientId: real!.clientId, userId: real!.userId });
  });

  it("refuse a scope the catalogue does not define, as /authorize does", () => {
    expect(() => verifiedPrincipal("mcp", { scope: "orders.read orders.delete" })).toThrow(
      /unknown scope\(s\) orders.delete/,
    );
  });

  it("reach only their own resource", async () => {
    await expect(callHandler(verifiedPrincipal("api", { scope: "contracts.read" }), MCP_URL)).rejects.toThrow(
      /not served by the api resource/,
    );
    await expect(
      callHandler(verifiedPrincipal("mcp", { scope: "contracts.read" }), `${API_RESOURCE}/v1/projects`),
    ).rejects.toThrow(/not served by the mcp resource/);
  });

  it("carry a placeholder that the front door refuses as a token", async () => {
    const principal = verifiedPrincipal("api", { scope: "contracts.read" });
    const response = await SELF.fetch(`${API_RESOURCE}/v1/projects`, {
      headers: { Authorization: `Bearer ${principal.auth.token}` },
    });
    expect(response.status).toBe(401);
  });
});
