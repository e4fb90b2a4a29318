/**
 * POST /chat: the demo answers through the same tools and pipeline (scopes, masking, tenant isolation). The first
 * test and the token test go through OAuth and the Worker's /chat; the others hand a verified principal to the
 * REST handler (harness.ts).
 */
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { fetchAs, isVerified, restPrincipal, type Caller } from "../harness";
import { API_RESOURCE, BASE, obtainTokens } from "../helpers";

type Chat = { correlationId: string; messages: Array<{ role: string; content: string }> };

async function apiToken(user: string, scope: string): Promise<string> {
  return (await obtainTokens({ user, scope, resource: API_RESOURCE })).tokens.access_token;
}

/** POST /chat: a token goes through the Worker's /chat; a verified principal to the REST handler, which serves /chat as /api/chat. */
function chat(token: Caller | undefined, body: unknown, contentType = "application/json") {
  const init = {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
  if (token === undefined) return SELF.fetch(`${BASE}/chat`, init);
  return fetchAs(token, isVerified(token) ? `${BASE}/api/chat` : `${BASE}/chat`, init);
}

async function ask(token: Caller, text: string): Promise<Chat> {
  const response = await chat(token, { text });
  expect(response.status).toBe(200);
  return (await response.json()) as Chat;
}

describe("POST /chat", () => {
  it("answers 'pedidos pagos' by calling orders_search for PAID, in Portuguese, masked for a member", async () => {
    const reply = await ask(await apiToken("mia", "orders.search orders.read"), "me traga pedidos pagos");
    expect(reply.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "assistant"]);
    expect(reply.messages[1]!.content).toBe("me traga pedidos pagos");
    expect(reply.messages[2]!.content).toBe("Consultando pedidos com status PAID via tool orders_search...");
    const summary = reply.messages[3]!.content;
    expect(summary).toMatch(/^Pedidos encontrados com status PAID: \d+ \(dados de demonstração\)\./);
    expect(summary).toContain("- ord_1001: [masked] - PAID - total 120.50 BRL");
    expect(summary).toContain("- ord_1003: [masked] - PAID - total 450.00 BRL");
    expect(summary).not.toMatch(/PENDING|Ana|Carla/);
  });

  it("answers 'paid orders' in English and shows names to a token holding orders.pii", async () => {
    const reply = await ask(restPrincipal("ana", "orders.search orders.pii"), "Show me the paid orders please");
    expect(reply.messages[2]!.content).toBe("Searching orders with status PAID via tool orders_search...");
    expect(reply.messages[3]!.content).toContain("- ord_1001: Ana - PAID - total 120.50 BRL");
  });

  it("answers an order id by calling orders_get_by_id", async () => {
    const token = restPrincipal("ana", "orders.read orders.pii");
    const reply = await ask(token, "detalhe o pedido ord_1002");
    expect(reply.messages[2]!.content).toBe("Consultando o pedido ord_1002 via tool orders_get_by_id...");
    expect(reply.messages[3]!.content).toBe(
      "Pedido ord_1002: Bruno - PENDING - total 89.90 BRL, 1 item(ns) (dados de demonstração).",
    );
    expect((await ask(token, "what about ord_9999?")).messages[3]!.content).toBe(
      "Order ord_9999 not found (demo data).",
    );
  });

  it("applies the tools' scopes and tenant isolation", async () => {
    const searchOnly = restPrincipal("ana", "orders.search");
    const refused = await ask(searchOnly, "detalhe o pedido ord_1002");
    expect(refused.messages[3]!.content).toMatch(
      /^Insufficient scope: orders_get_by_id needs the OAuth scope "orders\.read"/,
    );
    expect(refused.messages[3]!.content).toContain(refused.correlationId);

    const gus = restPrincipal("gus", "orders.read orders.pii");
    expect((await ask(gus, "detalhe o pedido ord_1002")).messages[3]!.content).toBe(
      "Pedido ord_1002 não encontrado (dados de demonstração).",
    );
  });

  it("answers with examples when it does not understand, and refuses bad bodies clearly", async () => {
    const token = restPrincipal("mia", "orders.search");
    const help = await ask(token, "hello there");
    expect(help.messages).toHaveLength(3);
    expect(help.messages[2]!.content).toContain('"show me paid orders"');
    expect(help.messages[2]!.content).toContain("ord_1002");

    for (const [body, type] of [
      ["not json", "application/json"],
      [{ text: "" }, "application/json"],
      [{ question: "paid" }, "application/json"],
      [{ text: "paid" }, "text/plain"],
    ] as const) {
      const response = await chat(token, body, type);
      expect(response.status).toBe(400);
      const error = ((await response.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain('Send JSON such as {"text": "paid orders"}');
    }
  });

  it("needs a REST API token: none, or one issued for /mcp, is refused", async () => {
    expect((await chat(undefined, { text: "paid orders" })).status).toBe(401);
    const mcpToken = (await obtainTokens({ user: "ana", scope: "orders.search" })).tokens.access_token;
    expect((await chat(mcpToken, { text: "paid orders" })).status).toBe(401);
  });
});
