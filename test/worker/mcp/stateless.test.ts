// The 2026-07-28 lane of /mcp at the handler level: served without a session, behind
// the same front as the session lane (403 step-up, foreign Origin refused, body bound), and every tools/call goes
// through the pipeline (one audit record with the pipeline's outcome).
// Tests reach the handler as a verified principal (harness.ts); the front door (Origin, 401) goes through SELF with a real token.
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { fetchAs, mcpPrincipal } from "../harness";
import { ordersContract } from "../contracts-mcp/fixtures";
import { ciPrincipal, uploadContract } from "../contracts-mcp/helpers";
import { MCP_URL, MODERN_ENVELOPE, MODERN_ERA, modernPost, obtainTokens } from "../helpers";

describe("2026-07-28 stateless lane", () => {
  it("answers tools/list and tools/call without a session", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const listed = await modernPost(token, "tools/list");
    expect(listed.status).toBe(200);
    expect(listed.headers.get("mcp-session-id")).toBeNull();
    const tools = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
      (t) => t.name,
    );
    expect(tools).toContain("whoami");
    const called = await modernPost(token, "tools/call", { name: "whoami", arguments: {} });
    expect(called.status).toBe(200);
    const result = (
      (await called.json()) as {
        result: { structuredContent: { organization: { id: string } }; _meta: { correlationId: string } };
      }
    ).result;
    expect(result.structuredContent).toMatchObject({ organization: { id: "acme" } });
    expect(result._meta.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("steps up with HTTP 403 before serving a tool whose scope the token lacks", async () => {
    const token = mcpPrincipal("ana", "contracts.read");
    const refused = await modernPost(token, "tools/call", { name: "audit_events_list", arguments: {} });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate") ?? "").toContain('error="insufficient_scope"');
  });

  it("refuses a foreign Origin and a request without a token like the session lane", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "contracts.read" });
    expect((await modernPost(tokens.access_token, "tools/list", {}, { Origin: "https://evil.example" })).status).toBe(
      403,
    );
    const anonymous = await SELF.fetch(MCP_URL, {
      method: "POST",
      headers: { "Content-Type": "application/json", "MCP-Protocol-Version": MODERN_ERA },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_ENVELOPE } }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("answers a 2026-07-28 request with a malformed envelope with -32602, not the session lane's errors", async () => {
    const token = mcpPrincipal("ana", "contracts.read");
    const response = await fetchAs(token, MCP_URL, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN_ERA,
        "Mcp-Method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN_ERA } },
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });

  it("holds subscriptions/listen to resources the caller could read, and acknowledges an allowed one on the stream", async () => {
    const latest = "spec://projects/orders/verdicts/latest";
    // A stream may follow only a project of the caller's organization (as resources/subscribe).
    await uploadContract(ciPrincipal("ana"), "orders", ordersContract());
    const noContracts = mcpPrincipal("ana", "orders.read");
    // A listen stream needs what a read of its URIs needs: stepped up before the hub, like resources/subscribe.
    const refused = await modernPost(noContracts, "subscriptions/listen", {
      notifications: { resourceSubscriptions: [latest] },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("WWW-Authenticate")).toMatch(/insufficient_scope/);
    expect(((await refused.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/needs the OAuth scope "contracts.read"/),
    });

    const reader = mcpPrincipal("ana", "contracts.read");
    const unknown = await modernPost(reader, "subscriptions/listen", {
      notifications: { resourceSubscriptions: ["test://nothing"] },
    });
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(
      /no resource test:\/\/nothing/,
    );

    const stream = await modernPost(reader, "subscriptions/listen", {
      notifications: { resourceSubscriptions: [latest] },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const body = stream.body!.getReader();
    let text = "";
    while (!text.includes("\n\n")) text += new TextDecoder().decode((await body.read()).value);
    await body.cancel();
    const first = JSON.parse(/data: (.*)/.exec(text)![1]!) as { method: string; params: { notifications: unknown } };
    expect(first).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { resourceSubscriptions: [latest] } },
    });
  });

  it("applies resources/subscribe's URI rules to subscriptions/listen: no foreign or unknown project, no URI over 2,048 characters", async () => {
    const reader = mcpPrincipal("ana", "contracts.read");
    const errorOf = async (uris: string[]) =>
      (
        (await (
          await modernPost(reader, "subscriptions/listen", { notifications: { resourceSubscriptions: uris } })
        ).json()) as { error?: { message: string } }
      ).error;
    // A project no organization of ana's has (another organization may have one by that name).
    expect(await errorOf(["spec://projects/not-ours/verdicts/latest"])).toMatchObject({
      message: expect.stringMatching(/not-ours/),
    });
    await uploadContract(ciPrincipal("ana"), "orders", ordersContract());
    expect(await errorOf(["spec://projects/orders/contracts/999"])).toMatchObject({
      message: expect.stringMatching(/999|version/),
    });
    const long = `spec://projects/${"a".repeat(2100)}/verdicts/latest`;
    expect(await errorOf([long])).toMatchObject({ message: expect.stringMatching(/at most 2048/) });
  });
});
