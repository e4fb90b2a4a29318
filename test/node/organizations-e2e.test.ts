/**
 * A new organization from nothing to a member's governed tools/call, without editing a file or redeploying: a real
 * `wrangler dev` started from the seed; the operator creates `initech` over REST; initech brings its own loopback
 * OpenID Connect provider (oidc-provider) and its own loopback GraphQL upstream with a credential; a member signs in
 * at initech's provider, consents, and calls orders_search from real MCP clients in both protocol eras (SDK 1.x in a
 * 2025-11-25 session, SDK 2.x statelessly). Then, with no restart: a lower quota gives 429 at the new limit; the
 * member's removal refuses their token; suspension refuses everything; deletion removes the data.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orgSignIn } from "../helpers/org-sign-in";
import { startTestProvider, type TestProvider } from "../helpers/oidc-test-provider";
import { freePort, startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { startLoopbackUpstream, type LoopbackUpstream } from "./graphql-support";

const OPERATOR_KEY = `e2e-operator-${crypto.randomUUID()}`;
const CLIENT_ID = "arbiter-initech";
const CLIENT_SECRET = `initech-idp-secret-${crypto.randomUUID()}`;
const UPSTREAM_CREDENTIAL = `initech-upstream-${crypto.randomUUID()}`;
const SESSION_SECRET = `e2e-session-secret-${crypto.randomUUID()}`;

let provider: TestProvider;
let upstream: LoopbackUpstream;
let worker: WranglerDev;

async function operator(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${worker.url}/operator/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${OPERATOR_KEY}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  const port = await freePort();
  upstream = await startLoopbackUpstream();
  provider = await startTestProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`http://localhost:${port}/signin/org/callback`],
    customClaims: ["role"],
    accounts: {
      ivy: { claims: { name: "Ivy Initech", email: "ivy@initech.example", email_verified: true, role: "analyst" } },
      // initech's provider vouches for an acme address: she still lands in initech, never in acme.
      mallory: { claims: { name: "Mallory", email: "mallory@acme.example", email_verified: true, role: "admin" } },
    },
  });
  worker = await startWranglerDev({
    port,
    vars: { ARBITER_DEV_SIGN_IN: "false", SESSION_SECRET, ARBITER_OPERATOR_KEY: OPERATOR_KEY },
  });
});

afterAll(async () => {
  const logs = worker?.logs() ?? "";
  await worker?.stop();
  await provider?.stop();
  await upstream?.close();
  // Secrets never reach the logs.
  for (const secret of [CLIENT_SECRET, UPSTREAM_CREDENTIAL, OPERATOR_KEY]) expect(logs).not.toContain(secret);
});

/** Signs `account` in at initech's provider through Arbiter's e-mail form, consents, redeems (org-sign-in.ts). */
function tokenFor(account: string, email: string, scope: string): Promise<{ token?: string; page?: Response }> {
  return orgSignIn({ arbiter: worker.url, account, email, scope });
}

type ToolResult = { isError?: boolean; structuredContent?: unknown };

/** One tools/call through a real client: SDK 1.x in a 2025-11-25 session, or SDK 2.x statelessly (2026-07-28). */
async function callTool(
  token: string,
  era: "session" | "stateless",
  name: string,
  args: object = {},
): Promise<ToolResult> {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  const client =
    era === "session"
      ? new Client({ name: "initech-v1", version: "1.0.0" })
      : new ClientV2({ name: "initech-v2", version: "1.0.0" });
  await client.connect(
    era === "session"
      ? new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), { requestInit })
      : new TransportV2(new URL(`${worker.url}/mcp`), { requestInit }),
  );
  try {
    return (await client.callTool({ name, arguments: args as Record<string, unknown> })) as ToolResult;
  } finally {
    await client.close();
  }
}

const searchSession = (token: string) => callTool(token, "session", "orders_search", { status: "PAID" });
const searchStateless = (token: string) => callTool(token, "stateless", "orders_search", { status: "PAID" });

describe("an organization onboarded at runtime (initech)", () => {
  let token: string;

  it("is created by the operator with its own provider and upstream, and its secrets are never shown", async () => {
    const created = await operator("POST", "/organizations", {
      id: "initech",
      name: "Initech",
      emailDomains: ["initech.example"],
      membersOnly: false,
      signIn: { issuer: provider.issuer, clientId: CLIENT_ID, roleClaim: "role" },
      upstream: {
        endpoint: upstream.url(),
        credentialHeader: "Authorization",
        credentialScheme: "Bearer",
        organizationHeader: "X-Organization-Id",
      },
    });
    expect(created.status).toBe(201);
    expect(
      (await operator("PUT", "/organizations/initech/secrets/signInClientSecret", { value: CLIENT_SECRET })).status,
    ).toBe(200);
    const shown = await operator("PUT", "/organizations/initech/secrets/upstreamCredential", {
      value: UPSTREAM_CREDENTIAL,
    });
    expect(shown.body.organization.secrets).toEqual({ signInClientSecret: true, upstreamCredential: true });
    expect(JSON.stringify(shown.body)).not.toContain(UPSTREAM_CREDENTIAL);
  });

  it("signs a member in at initech's provider; the organization comes from the provider, never from claims", async () => {
    const signed = await tokenFor("ivy", "ivy@initech.example", "orders.read orders.search");
    expect(signed.token).toBeDefined();
    token = signed.token!;
    const mallory = await tokenFor("mallory", "mallory@initech.example", "orders.read orders.search");
    const whoami = await callTool(mallory.token!, "session", "whoami");
    expect(whoami.structuredContent).toMatchObject({ organization: { id: "initech", name: "Initech" } });
  });

  it("calls orders_search in both eras against initech's upstream, with initech's credential and organization header", async () => {
    const before = upstream.requests.length;
    for (const result of [await searchSession(token), await searchStateless(token)]) {
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { orders: Array<{ id: string }> }).orders.map((o) => o.id)).toContain(
        "ord_7001",
      );
    }
    const seen = upstream.requests.slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const request of seen) {
      expect(request.headers.authorization).toBe(`Bearer ${UPSTREAM_CREDENTIAL}`);
      expect(request.headers["x-organization-id"]).toBe("initech");
      expect(request.headers.authorization).not.toContain(token);
    }
  });

  it("a lower quota gives 429 at the new limit on the next calls, without a restart", async () => {
    const lowered = await operator("PATCH", "/organizations/initech", {
      quotas: { tools: { orders_get_by_id: { limit: 2, windowSeconds: 600 } } },
    });
    expect(lowered.status).toBe(200);
    // Other isolates see a change within the directory cache's bound (2 s); wrangler dev runs one, so it is at once.
    const byId = (era: "session" | "stateless") => callTool(token, era, "orders_get_by_id", { id: "ord_7001" });
    const results = [await byId("stateless"), await byId("session"), await byId("stateless"), await byId("session")];
    expect(results.map((result) => result.isError ?? false)).toEqual([false, false, true, true]);
    expect(JSON.stringify(results[2])).toMatch(/rate.?limit|quota/i);
  });

  it("a removed member's token is refused", async () => {
    const removed = await operator("DELETE", "/organizations/initech/members/ivy%40initech.example");
    expect(removed.status).toBe(200);
    expect(removed.body.grantsRevoked).toBeGreaterThanOrEqual(1);
    const refused = await fetch(`${worker.url}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);
    const again = await tokenFor("ivy", "ivy@initech.example", "orders.read");
    expect(again.token).toBeUndefined();
    expect(again.page?.status).toBe(403);
    expect(await again.page?.text()).toContain("removed from this organization");
  });

  it("a suspended organization is refused everywhere, then deleted with its data", async () => {
    const mallory = await tokenFor("mallory", "mallory@initech.example", "orders.read orders.search");
    expect(mallory.token).toBeDefined();
    expect((await operator("POST", "/organizations/initech/suspend")).status).toBe(200);
    const refused = await fetch(`${worker.url}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${mallory.token}`, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("organization_suspended");
    const signIn = await tokenFor("mallory", "mallory@initech.example", "orders.read");
    expect(signIn.token).toBeUndefined();

    const archive = await operator("GET", "/organizations/initech/export");
    expect(archive.status).toBe(200);
    expect(JSON.stringify(archive.body)).not.toContain(UPSTREAM_CREDENTIAL);
    expect((await operator("PUT", "/caps", { deletionGraceDays: 0 })).status).toBe(200);
    expect((await operator("DELETE", "/organizations/initech")).status).toBe(202);
    expect((await operator("GET", "/organizations/initech")).status).toBe(404);
    const log = (await operator("GET", "/organizations/initech/changes")).body.changes.map(
      (c: { action: string }) => c.action,
    );
    expect(log[0]).toBe("organization.deleted");
    const gone = await fetch(`${worker.url}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${mallory.token}` },
    });
    expect(gone.status).toBe(401);
  });
});
