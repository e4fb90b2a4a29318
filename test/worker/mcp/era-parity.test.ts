/**
 * The two protocol eras at /mcp serve one catalog through one governed core, so the same request must get the same
 * answer in a 2025-11-25 session and in a 2026-07-28 stateless request. This drives the same inputs through both lanes
 * and compares what a client sees against a short table of known divergences, each with its reason. A listing that
 * differs by role (the stateless tools/list once listed every tool to a member) fails here.
 */
import { describe, expect, it } from "vitest";
import { mcpPrincipal, type Verified } from "../harness";
import { initializeSession, mcpPost, modernPost, readRpc } from "../helpers";

type Answer = Record<string, any>;

/** What the same request answers in each lane: the JSON-RPC message, or the HTTP status when the front refused it. */
async function bothLanes(
  caller: Verified,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ session: Answer; stateless: Answer }> {
  const sessionId = await initializeSession(caller);
  const sessionResponse = await mcpPost(
    caller,
    { jsonrpc: "2.0", id: 5, method, params },
    { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
  );
  const statelessResponse = await modernPost(caller, method, params, {}, 5);
  const answerOf = async (response: Response) =>
    response.status === 200
      ? ((await readRpc(response)).find((message) => message.id === 5) ?? {})
      : { httpStatus: response.status };
  return { session: await answerOf(sessionResponse), stateless: await answerOf(statelessResponse) };
}

const names = (items: Array<{ name: string }> | undefined) => (items ?? []).map((item) => item.name).sort();
const uris = (items: Array<{ uri?: string; uriTemplate?: string }> | undefined) =>
  (items ?? []).map((item) => item.uri ?? item.uriTemplate).sort();

/**
 * Known divergences, by what differs and why. Anything else a client can see in these answers must be equal.
 * - result fields the 2026-07-28 revision adds to every result (`resultType`, and `ttlMs`/`cacheScope` on lists):
 *   compared without them;
 * - the correlation id (in `_meta`, and in an error's text) differs per request by design: compared without it;
 * - a 2026-07-28 result names the server in `_meta["io.modelcontextprotocol/serverInfo"]` (that revision has no
 *   initialize to say it once): compared without it, and checked to be the session's serverInfo;
 * - resource not found is -32002 in 2025-11-25 and -32602 in 2026-07-28 (that revision's error table; the SDK maps
 *   it): the codes are checked apart, the message and data compared.
 */
const ADDED_BY_2026 = ["resultType", "ttlMs", "cacheScope"];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
function comparable(result: Answer | undefined): Answer | undefined {
  if (!result || typeof result !== "object") return result;
  const copy: Answer = JSON.parse(JSON.stringify(result).replace(UUID, "<correlation id>"));
  for (const key of ADDED_BY_2026) delete copy[key];
  if (copy._meta) {
    const {
      correlationId: _correlation,
      "io.modelcontextprotocol/serverInfo": _serverInfo,
      ...meta
    } = copy._meta as Answer;
    copy._meta = meta;
  }
  return copy;
}

describe("the two eras answer alike", () => {
  for (const user of ["mia", "ana"]) {
    it(`lists the same tools, resources, templates and prompts to ${user === "mia" ? "a member" : "an administrator"}`, async () => {
      const caller = mcpPrincipal(user, "orders.read contracts.read");
      const tools = await bothLanes(caller, "tools/list");
      expect(names(tools.stateless.result?.tools)).toEqual(names(tools.session.result?.tools));
      expect(names(tools.session.result?.tools).length).toBeGreaterThan(5);
      const resources = await bothLanes(caller, "resources/list");
      expect(uris(resources.stateless.result?.resources)).toEqual(uris(resources.session.result?.resources));
      const templates = await bothLanes(caller, "resources/templates/list");
      expect(uris(templates.stateless.result?.resourceTemplates)).toEqual(
        uris(templates.session.result?.resourceTemplates),
      );
      const prompts = await bothLanes(caller, "prompts/list");
      expect(names(prompts.stateless.result?.prompts)).toEqual(names(prompts.session.result?.prompts));
    });
  }

  it("answers a tool call, a call with bad arguments and an unknown tool alike", async () => {
    const caller = mcpPrincipal("ana", "orders.read contracts.read");
    const whoami = await bothLanes(caller, "tools/call", { name: "whoami", arguments: {} });
    expect(whoami.stateless.result?._meta?.["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "arbiter" });
    // The two calls count against the same quota, one after the other: its remaining count is compared apart.
    const withoutQuotas = (result: Answer | undefined) => {
      const { quotas, ...rest } = (comparable(result)?.structuredContent ?? {}) as Answer;
      return { rest, quotaTools: (quotas as Array<{ tool: string }> | undefined)?.map((quota) => quota.tool) };
    };
    expect(withoutQuotas(whoami.stateless.result)).toEqual(withoutQuotas(whoami.session.result));
    expect(whoami.stateless.result?.isError).toBe(whoami.session.result?.isError);
    const bad = await bothLanes(caller, "tools/call", { name: "orders_get_by_id", arguments: { id: 42 } });
    expect(bad.session.result?.isError).toBe(true);
    expect(comparable(bad.stateless.result)).toEqual(comparable(bad.session.result));
    const unknown = await bothLanes(caller, "tools/call", { name: "no_such_tool", arguments: {} });
    expect(unknown.session.error?.code ?? unknown.session.result?.isError).toBeDefined();
    expect(unknown.stateless.error?.code).toEqual(unknown.session.error?.code);
  });

  it("answers a resource that names nothing alike, each era with its code", async () => {
    const caller = mcpPrincipal("ana", "contracts.read");
    for (const uri of [
      "file:///etc/passwd",
      "spec://projects/ghost/contracts/1",
      `spec://projects/${"x".repeat(3000)}`,
    ]) {
      const read = await bothLanes(caller, "resources/read", { uri });
      expect(read.session.error?.code).toBe(uri.length > 2048 ? -32602 : -32002);
      expect(read.stateless.error?.code).toBe(-32602);
      const { code: _session, ...sessionError } = comparable(read.session.error) ?? {};
      const { code: _stateless, ...statelessError } = comparable(read.stateless.error) ?? {};
      expect(statelessError).toEqual(sessionError);
      if (uri.length <= 2048) expect(sessionError.data?.uri).toBe(uri);
    }
  });

  it("refuses a call beyond the token's scopes alike, at the front (403 step-up)", async () => {
    const caller = mcpPrincipal("ana", "contracts.read");
    const refused = await bothLanes(caller, "tools/call", { name: "audit_events_list", arguments: {} });
    expect(refused.session).toEqual({ httpStatus: 403 });
    expect(refused.stateless).toEqual({ httpStatus: 403 });
  });
});
