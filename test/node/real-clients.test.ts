/**
 * Real clients' wire behaviour replayed against the shared `wrangler dev` (fixtures in real-clients/fixtures.ts,
 * written from public traces): for each client, its first request without a token (401 and the challenge), the
 * discovery documents it probes, its Dynamic Client Registration with its own callbacks, sign-in and consent,
 * the code exchange with PKCE, then its MCP requests exactly as it sends them. The user-visible outcome is
 * asserted: the final tools/call answers whoami for the signed-in user. Also: the tolerance table is docs/clients.md's.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { TOLERANCES } from "../../src/mcp/compat/tolerances";
import { approveAuthorization } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { ENVELOPE_KEY, FIXTURES, type ClientFixture, type Step } from "./real-clients/fixtures";

let server: WranglerDev;
beforeAll(async () => {
  server = await sharedWranglerDev();
});

const base64url = (bytes: Buffer) =>
  bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** The step's body as this client sends it: its clientInfo in initialize, its envelope in `_meta`. */
function wireBody(fixture: ClientFixture, step: Step): unknown {
  const body = structuredClone(step.body) as {
    method?: string;
    params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  };
  if (body.method === "initialize" && body.params) body.params.clientInfo = fixture.clientInfo;
  if (body.params?._meta?.["{{envelope}}"]) {
    const { "{{envelope}}": _marker, ...rest } = body.params._meta;
    body.params._meta = {
      [ENVELOPE_KEY]: "2026-07-28",
      "io.modelcontextprotocol/clientInfo": fixture.clientInfo,
      "io.modelcontextprotocol/clientCapabilities": {},
      ...rest,
    };
  }
  return body;
}

/** The JSON-RPC messages of an answer, JSON or an event stream. */
async function messagesOf(response: Response): Promise<Array<Record<string, any>>> {
  const text = await response.text();
  if (text.trim() === "") return [];
  if ((response.headers.get("content-type") ?? "").startsWith("application/json")) return [JSON.parse(text)].flat();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

async function post(fixture: ClientFixture, step: Step, token?: string, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: fixture.accept,
    "User-Agent": fixture.userAgent,
    ...step.headers,
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (step.session && sessionId) headers["Mcp-Session-Id"] = sessionId;
  return fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(wireBody(fixture, step)) });
}

/** Discovery, DCR, sign-in and consent, code exchange: the token this client ends up with. */
async function oauthAsClient(fixture: ClientFixture): Promise<string> {
  const unauthorized = await post(fixture, fixture.first);
  expect(unauthorized.status, "first request without a token").toBe(401);
  expect(unauthorized.headers.get("www-authenticate")).toContain(
    `resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
  );
  for (const path of fixture.discovery) {
    const probe = await fetch(`${server.url}${path}`, {
      headers: { "User-Agent": fixture.userAgent, Accept: "application/json" },
    });
    expect(probe.status, `GET ${path}`).toBe(200);
    const document = (await probe.json()) as { issuer?: string; resource?: string };
    expect(document.issuer ?? document.resource, `GET ${path} names the issuer or the resource`).toMatch(
      new RegExp(`^${server.url}`),
    );
  }
  const registered = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "User-Agent": fixture.userAgent },
    body: JSON.stringify({ ...fixture.registration, response_types: ["code"] }),
  });
  expect(registered.status, `DCR: ${await registered.clone().text()}`).toBe(201);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;

  const verifier = base64url(randomBytes(32));
  const authorize = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: fixture.redirectUri,
    code_challenge: base64url(createHash("sha256").update(verifier).digest()),
    code_challenge_method: "S256",
    state: "replay",
    resource: `${server.url}/mcp`,
    scope: fixture.scope,
  });
  const location = await approveAuthorization(server.url, "ana", `/authorize?${authorize}`);
  expect(location?.startsWith(fixture.redirectUri), `redirected to the client's callback: ${location}`).toBe(true);
  const code = new URL(location!).searchParams.get("code")!;
  const token = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: fixture.redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${server.url}/mcp`,
    }),
  });
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}

describe("real clients: OAuth discovery through tools/call, replayed from public traces", () => {
  for (const fixture of FIXTURES) {
    const needs = fixture.tolerances.length > 0 ? ` (needs ${fixture.tolerances.join(", ")})` : "";
    it(`${fixture.client}${needs}`, async () => {
      const token = await oauthAsClient(fixture);
      let sessionId: string | undefined;
      let last: Array<Record<string, any>> = [];
      for (const [index, step] of fixture.steps.entries()) {
        const response = await post(fixture, step, token, sessionId);
        const what = `step ${index + 1} (${String(step.body.method)})`;
        const expected = step.status ?? ("id" in step.body ? 200 : 202);
        if (response.status !== expected)
          throw new Error(
            `${what}: HTTP ${response.status}, expected ${expected}: ${(await response.text()).slice(0, 400)}`,
          );
        if (step.body.method === "initialize") sessionId = response.headers.get("mcp-session-id") ?? sessionId;
        if (!fixture.accept.includes("text/event-stream") && expected === 200)
          expect(response.headers.get("content-type"), `${what}: a JSON answer`).toMatch(/^application\/json/);
        last = await messagesOf(response);
        const answer = last.find((message) => message.id === step.body.id);
        if ("id" in step.body) expect(answer?.error, `${what}: ${JSON.stringify(answer?.error)}`).toBeUndefined();
        if (step.body.method === "server/discover")
          expect(answer?.result?.supportedVersions).toEqual(expect.arrayContaining(["2026-07-28", "2025-11-25"]));
      }
      const called = last.find((message) => message.result)?.result;
      expect(called?.isError).toBeFalsy();
      expect(called?.structuredContent).toMatchObject({ userId: "ana", organization: { id: "acme" } });
    });
  }
});

describe("the tolerance table", () => {
  it("is documented row by row in docs/clients.md's compatibility front, as src/mcp/compat/tolerances.ts says", () => {
    const clientsDoc = readFileSync(resolve(import.meta.dirname, "../../docs/clients.md"), "utf8");
    for (const { id, clients, source, action, safety } of TOLERANCES)
      expect(clientsDoc, id).toContain(`| \`${id}\` | ${clients} (${source}) | ${action} | ${safety} |`);
  });

  it("is needed by some fixture, rule by rule (a rule no client needs should be dropped)", () => {
    for (const tolerance of TOLERANCES)
      expect(
        FIXTURES.some((fixture) => fixture.tolerances.includes(tolerance.id)),
        tolerance.id,
      ).toBe(true);
  });
});
