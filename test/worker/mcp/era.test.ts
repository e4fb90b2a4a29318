/**
 * The per-request era decision at /mcp (src/mcp/era.ts), as a table: what the client sent -> which lane serves it.
 * 2025-11-25 = the McpAgent session lane; 2026-07-28 = the stateless SDK v2 lane (which also answers malformed
 * 2026-07-28 requests with its protocol errors, so those must not fall into the session lane).
 */
import { describe, expect, it } from "vitest";
import { mcpEraOf, type McpEra } from "../../../src/mcp/era";

const MODERN = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Row {
  what: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  era: McpEra;
}

const rows: Row[] = [
  {
    what: "initialize (2025 handshake)",
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    },
    era: "2025-11-25",
  },
  {
    what: "a request inside a session (Mcp-Session-Id, 2025 header)",
    headers: { "mcp-session-id": "abc", "mcp-protocol-version": "2025-11-25" },
    body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    era: "2025-11-25",
  },
  {
    what: "notifications/initialized",
    headers: { "mcp-session-id": "abc" },
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
    era: "2025-11-25",
  },
  {
    what: "GET: the 2025 standalone SSE stream",
    method: "GET",
    headers: { "mcp-session-id": "abc" },
    era: "2025-11-25",
  },
  { what: "DELETE: ending a 2025 session", method: "DELETE", headers: { "mcp-session-id": "abc" }, era: "2025-11-25" },
  { what: "a JSON-RPC batch (2025 only)", body: [{ jsonrpc: "2.0", id: 3, method: "tools/list" }], era: "2025-11-25" },
  {
    what: "a posted JSON-RPC response (answer to a server request)",
    headers: { "mcp-session-id": "abc" },
    body: { jsonrpc: "2.0", id: 9, result: {} },
    era: "2025-11-25",
  },
  {
    what: "a 2026-07-28 request: envelope in _meta and the header",
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
    body: { jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: envelope } },
    era: "2026-07-28",
  },
  {
    what: "server/discover probe of a negotiating client",
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
    body: { jsonrpc: "2.0", id: 5, method: "server/discover", params: { _meta: envelope } },
    era: "2026-07-28",
  },
  {
    what: "subscriptions/listen",
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "subscriptions/listen" },
    body: {
      jsonrpc: "2.0",
      id: "listen:1",
      method: "subscriptions/listen",
      params: { _meta: envelope, notifications: {} },
    },
    era: "2026-07-28",
  },
  {
    what: "envelope claim naming an unknown revision (the stateless lane answers unsupported version)",
    body: {
      jsonrpc: "2.0",
      id: 6,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    },
    era: "2026-07-28",
  },
  {
    what: "a body that is not JSON-RPC, without any 2026-07-28 signal (the session lane answers as before)",
    body: { hello: "world" },
    era: "2025-11-25",
  },
  { what: "an empty object body and no headers", body: {}, era: "2025-11-25" },
  {
    what: "an envelope inside a session (Mcp-Session-Id wins: 2026-07-28 has no sessions)",
    headers: { "mcp-session-id": "abc" },
    body: { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: envelope } },
    era: "2025-11-25",
  },
  {
    what: "a 2026-07-28 request with a malformed envelope (the stateless lane answers -32602)",
    headers: { "mcp-protocol-version": MODERN },
    body: {
      jsonrpc: "2.0",
      id: 10,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } },
    },
    era: "2026-07-28",
  },
  {
    what: "a batch with a 2026-07-28 element (the stateless lane refuses it)",
    body: [{ jsonrpc: "2.0", id: 11, method: "tools/list", params: { _meta: envelope } }],
    era: "2026-07-28",
  },
  {
    what: "modern header without the envelope (the stateless lane answers -32602)",
    headers: { "mcp-protocol-version": MODERN },
    body: { jsonrpc: "2.0", id: 7, method: "tools/list" },
    era: "2026-07-28",
  },
];

describe("mcpEraOf", () => {
  for (const row of rows) {
    it(`${row.what} -> ${row.era}`, async () => {
      const method = row.method ?? "POST";
      const request = new Request("https://arbiter.example/mcp", {
        method,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...row.headers },
        ...(method === "POST" ? { body: JSON.stringify(row.body) } : {}),
      });
      expect(await mcpEraOf(request, method === "POST" ? row.body : undefined, 4 * 1024 * 1024)).toBe(row.era);
    });
  }
});
