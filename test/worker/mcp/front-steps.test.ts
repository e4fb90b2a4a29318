// The /mcp front as named steps in one declared order (src/mcp/http.ts FRONT_STEPS), each run here alone on a
// request of its own: what it answers, and that it hands anything else to the next step untouched.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../../src/core/principal";
import { FRONT_STEPS } from "../../../src/mcp/http";
import { readBody } from "../../../src/mcp/front/body";
import { compatibilityFront } from "../../../src/mcp/front/compatibility";
import type { FrontRequest } from "../../../src/mcp/front/front-request";
import { checkBounds, MAX_BATCH_MESSAGES } from "../../../src/mcp/front/message-bounds";
import { checkParams } from "../../../src/mcp/front/message-params";
import { checkSessionId } from "../../../src/mcp/front/session-id";
import { stepUp } from "../../../src/mcp/front/step-up";
import { MCP_URL } from "../helpers";

const principal: Principal = {
  organizationId: "acme",
  userId: "ana",
  clientId: "front-steps-client",
  role: "admin",
  scopes: ["orders.read"],
};

function frontOf(request: Request, message?: unknown): FrontRequest {
  return {
    request,
    env,
    ctx: { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext,
    principal,
    auth: { scope: principal.scopes, audience: MCP_URL } as unknown as FrontRequest["auth"],
    correlationId: "front-steps-correlation",
    tolerated: [],
    ...(message === undefined ? {} : { message: { text: JSON.stringify(message), parsed: message } }),
  };
}

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request(MCP_URL, { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });

describe("the /mcp front's steps", () => {
  it("run in the declared order, the era router last", () => {
    expect(FRONT_STEPS.map(([name]) => name)).toEqual([
      "body",
      "bounds",
      "step-up",
      "unknown-tool audit",
      "params",
      "compatibility",
      "session id",
      "era router",
    ]);
  });

  it("body: parses a POST's JSON into the request, refuses what is not JSON, and reads nothing of a GET", async () => {
    const ok = frontOf(post('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
    expect(await readBody(ok)).toBeUndefined();
    expect(ok.message?.parsed).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });

    const refused = await readBody(frontOf(post("{not json")));
    expect(refused?.status).toBe(400);
    expect(((await refused!.json()) as { error: { code: number } }).error.code).toBe(-32700);

    const get = frontOf(new Request(MCP_URL));
    expect(await readBody(get)).toBeUndefined();
    expect(get.message).toBeUndefined();
  });

  it("bounds: refuses a batch over the bound, passes one at it", async () => {
    const batch = (n: number) => Array.from({ length: n }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" }));
    const over = await checkBounds(frontOf(post(""), batch(MAX_BATCH_MESSAGES + 1)));
    expect(over?.status).toBe(400);
    expect(((await over!.json()) as { error: { data: { limit: string } } }).error.data.limit).toBe("batch-length");
    expect(await checkBounds(frontOf(post(""), batch(MAX_BATCH_MESSAGES)))).toBeUndefined();
  });

  it("params: answers -32602 naming the field for a misshapen tools/call, prompts/get or resources/read", async () => {
    const message = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 5, method, params });
    const cases: Array<[unknown, string]> = [
      [message("tools/call", { name: "whoami", arguments: "x" }), "tools/call: params.arguments must be an object"],
      [message("tools/call", { name: "whoami", arguments: [] }), "not an array"],
      [message("tools/call", { name: 7 }), "tools/call: params.name must be a string"],
      [message("tools/call", "whoami"), "tools/call: params must be an object with the tool's name"],
      [
        message("prompts/get", { name: "ask_orders", arguments: { question: 1 } }),
        "params.arguments.question must be a string",
      ],
      [message("resources/read", {}), "resources/read: params.uri must be a string (a URI from resources/list"],
      [message("resources/subscribe", { uri: null }), "not null"],
      [message("tools/list", { cursor: 5 }), "tools/list: params.cursor must be the nextCursor string"],
      [message("prompts/list", "page 2"), "prompts/list: params must be an object (or left out)"],
      [
        message("initialize", { protocolVersion: "2025-11-25", capabilities: {} }),
        "params.clientInfo must be an object",
      ],
      [
        message("initialize", { protocolVersion: 20251125, capabilities: {}, clientInfo: {} }),
        "params.protocolVersion",
      ],
      [message("logging/setLevel", { level: "verbose" }), "params.level must be one of debug, info"],
    ];
    const inSession = { "mcp-session-id": "a-session" };
    for (const [body, expected] of cases) {
      const answer = await checkParams(frontOf(post("", inSession), body));
      expect(answer?.status, JSON.stringify(body)).toBe(200);
      const error = ((await answer!.json()) as { id: number; error: { code: number; message: string } }).error;
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(expected);
    }
    for (const fine of [
      message("tools/call", { name: "whoami" }),
      message("tools/call", { name: "whoami", arguments: {} }),
      message("prompts/get", { name: "ask_orders", arguments: { question: "late orders?" } }),
      message("resources/read", { uri: "spec://projects" }),
      message("tools/list", undefined),
      message("resources/list", { cursor: "next" }),
      message("logging/setLevel", { level: "warning" }),
      message("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      }),
      message("ping", "anything: not a method this step checks"),
      [message("tools/call", "in a batch: the session's SDK answers each message")],
    ])
      expect(await checkParams(frontOf(post("", inSession), fine)), JSON.stringify(fine)).toBeUndefined();
    // In a 2026-07-28 request, initialize and subscribing are methods that era removed: its lane answers 404 /
    // -32601, not this step.
    const modern = { "mcp-protocol-version": "2026-07-28" };
    const enveloped = (method: string, params: Record<string, unknown>) =>
      message(method, { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
    for (const removed of [enveloped("resources/subscribe", { uri: 5 }), enveloped("initialize", {})])
      expect(await checkParams(frontOf(post("", modern), removed)), JSON.stringify(removed)).toBeUndefined();
    expect((await checkParams(frontOf(post("", modern), enveloped("tools/list", { cursor: 5 }))))?.status).toBe(200);
  });

  it("session id: an Mcp-Session-Id no session can have is an unknown session; a possible one goes on", async () => {
    for (const impossible of ["x".repeat(257), "two words", "caf\u00e9"]) {
      const front = frontOf(new Request(MCP_URL, { method: "GET" }));
      front.headers = new Headers({ "mcp-session-id": impossible });
      const answer = await checkSessionId(front);
      expect(answer?.status, impossible.slice(0, 20)).toBe(404);
      expect(((await answer!.json()) as { error: { code: number; message: string } }).error).toMatchObject({
        code: -32001,
        message: expect.stringContaining("Start a new session with initialize"),
      });
    }
    for (const possible of ["a".repeat(64), "x".repeat(256), ""]) {
      const front = frontOf(new Request(MCP_URL, { method: "GET", headers: { "mcp-session-id": possible } }));
      expect(await checkSessionId(front), `${possible.length} characters`).toBeUndefined();
    }
  });

  it("step-up: answers 403 for a call that needs a scope the token lacks, and passes one it holds", async () => {
    const call = (name: string) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: {} } });
    const refused = await stepUp(frontOf(post(""), call("audit_events_list")));
    expect(refused?.status).toBe(403);
    expect(refused?.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(await stepUp(frontOf(post(""), call("whoami")))).toBeUndefined();
  });

  it("compatibility: refuses a header it does not tolerate, and hands on the headers of one it does", async () => {
    const twice = new Headers({ "Content-Type": "application/json" });
    twice.append("mcp-protocol-version", "2025-11-25");
    twice.append("mcp-protocol-version", "2025-06-18");
    const conflicting = await compatibilityFront(frontOf(new Request(MCP_URL, { method: "POST", headers: twice })));
    expect(conflicting?.status).toBe(400);

    const plain = frontOf(post("", { "mcp-protocol-version": "2025-11-25" }), {
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
    });
    expect(await compatibilityFront(plain)).toBeUndefined();
    expect(plain.headers?.get("mcp-protocol-version")).toBe("2025-11-25");
  });
});
