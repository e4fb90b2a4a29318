/** 401 answers of both resources carry a JSON body a person can act on; the RFC 6750 challenge is unchanged. */
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import { API_RESOURCE, BASE, MCP_URL, obtainTokens } from "../helpers";
import { createKey, restToken } from "../contracts-api/api-helpers";

const CHALLENGE_API = `Bearer realm="OAuth", resource_metadata="${BASE}/.well-known/oauth-protected-resource/api"`;
const CHALLENGE_MCP = `Bearer realm="OAuth", resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`;

async function get(
  url: string,
  authorization?: string,
): Promise<{ status: number; type: string; challenge: string; body: any }> {
  const response = await SELF.fetch(url, {
    headers: authorization === undefined ? {} : { Authorization: authorization },
  });
  return {
    status: response.status,
    type: response.headers.get("content-type") ?? "",
    challenge: response.headers.get("www-authenticate") ?? "",
    body: await response.json(),
  };
}

let mcpToken: string;
let apiToken: string;
let ciKey: string;

beforeAll(async () => {
  mcpToken = (await obtainTokens({ user: "ana", scope: "orders.read" })).tokens.access_token;
  apiToken = await restToken("ana", "contracts.read keys.admin");
  ciKey = (await createKey(apiToken, { projects: ["*"], scopes: ["contracts.read"] })).secret;
});

describe("401 bodies", () => {
  it("a REST call without credentials gets a problem+json body and the unchanged challenge", async () => {
    const answer = await get(`${BASE}/api/v1/projects`);
    expect(answer.status).toBe(401);
    expect(answer.type).toBe("application/problem+json");
    expect(answer.challenge.startsWith(CHALLENGE_API)).toBe(true);
    expect(answer.challenge).not.toContain("error=");
    expect(answer.body).toMatchObject({
      status: 401,
      title: "Unauthorized",
      code: "missing_token",
      error: "missing_token",
      type: "urn:arbiter:problem:missing_token",
    });
    expect(answer.body.detail).toContain("Authorization: Bearer <token>");
    expect(answer.body.error_description).toBe(answer.body.detail);
  });

  it("/mcp without credentials gets a JSON body", async () => {
    const response = await SELF.fetch(MCP_URL, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("www-authenticate")?.startsWith(CHALLENGE_MCP)).toBe(true);
    expect(await response.json()).toMatchObject({
      error: "missing_token",
      error_description: expect.stringContaining("Bearer"),
    });
  });

  it("an MCP token on the REST API names both resources", async () => {
    const answer = await get(`${BASE}/api/v1/projects`, `Bearer ${mcpToken}`);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('error="invalid_token"');
    expect(answer.body.code).toBe("invalid_token");
    expect(answer.body.detail).toBe(
      `This token was issued for ${MCP_URL}; REST needs a token for ${API_RESOURCE}. Ask for one with resource=${API_RESOURCE} when authorizing (arbiter login does).`,
    );
  });

  it("a REST token on /mcp says so the other way round", async () => {
    const answer = await get(MCP_URL, `Bearer ${apiToken}`);
    expect(answer.status).toBe(401);
    expect(answer.type).toBe("application/json");
    expect(answer.body.error).toBe("invalid_token");
    expect(answer.body.error_description).toContain(
      `This token was issued for ${API_RESOURCE}; MCP needs a token for ${MCP_URL}`,
    );
  });

  it("a CI key sent without Bearer is told how to send it", async () => {
    const answer = await get(`${BASE}/api/v1/projects`, ciKey);
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe("invalid_request");
    expect(answer.body.detail).toContain("send it as Authorization: Bearer <key>");
    expect(JSON.stringify(answer.body)).not.toContain(ciKey);
  });

  it("a CI key on /mcp, an unknown CI key and an unknown token are each explained", async () => {
    const onMcp = await get(MCP_URL, `Bearer ${ciKey}`);
    expect(onMcp.body.error_description).toContain("CI keys work only on the REST API");
    const unknownKey = await get(`${BASE}/api/v1/projects`, `Bearer ${ciKey.slice(0, -4)}AAAA`);
    expect(unknownKey.body.detail).toContain("The CI key is unknown, revoked or expired");
    const unknown = await get(`${BASE}/api/v1/projects`, "Bearer a:b:c");
    expect(unknown.body.detail).toContain("unknown, expired or revoked");
    const basic = await get(`${BASE}/api/v1/projects`, "Basic dXNlcjpwdw==");
    expect(basic.body.detail).toContain('The Authorization scheme "Basic" is not accepted');
  });

  it("a valid token still reaches the route", async () => {
    const response = await SELF.fetch(`${BASE}/api/v1/projects`, { headers: { Authorization: `Bearer ${ciKey}` } });
    expect(response.status).toBe(200);
  });
});
