// tools/list leaves out tools whose scopes the caller's role can never grant (policies/organizations.json, narrowed by
// the organization's roleCaps);
// `listToolsBeyondRole: true` keeps listing them. Tools the role could grant but the token lacks stay listed.
import { describe, expect, it } from "vitest";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { toolsListableFor } from "../../../src/mcp/tool-visibility";
import { bundledPolicyFiles } from "../../../src/policy/files";
import { getPolicy, loadPolicy } from "../../../src/policy/load";
import { fetchAs, mcpPrincipal, restPrincipal } from "../harness";
import { BASE, initializeSession, mcpPost, modernPost, readRpc, rpc } from "../helpers";
import { operator } from "../directory/helpers";

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name);

describe("toolsListableFor", () => {
  const tools = [...getCatalog().tools.values()];

  it("drops a member's tools that need a scope no member can be granted", () => {
    const listed = names(toolsListableFor(tools, "member", getPolicy()));
    expect(listed).not.toContain("audit_events_list");
    expect(listed).toEqual(expect.arrayContaining(["whoami", "orders_search", "check_api_conformance"]));
    expect(listed.length).toBeLessThan(tools.length);
  });

  it("lists everything to an administrator, and only scope-free tools to an unknown role", () => {
    expect(names(toolsListableFor(tools, "admin", getPolicy()))).toEqual(names(tools));
    const none = toolsListableFor(tools, "constructor", getPolicy());
    expect(none.every((tool) => tool.requiredScopes.length === 0)).toBe(true);
    expect(names(none)).toContain("whoami");
  });

  it("lists every tool when organizations.json sets listToolsBeyondRole", () => {
    const files = {
      ...bundledPolicyFiles,
      "organizations.json": { ...(bundledPolicyFiles["organizations.json"] as object), listToolsBeyondRole: true },
    };
    const policy = loadPolicy(files);
    expect(policy.listToolsBeyondRole).toBe(true);
    expect(names(toolsListableFor(tools, "member", policy))).toEqual(names(tools));
    expect(getPolicy().listToolsBeyondRole).toBe(false);
  });
});

describe("tools/list over /mcp", () => {
  it("a member does not see audit_events_list; an administrator does", async () => {
    const member = mcpPrincipal("mia", "orders.read contracts.read");
    const memberTools = names((await rpc(member, await initializeSession(member), "tools/list")).result.tools);
    expect(memberTools).not.toContain("audit_events_list");
    // Grantable to a member but not granted to this token: still listed, step-up gets it.
    expect(memberTools).toContain("orders_search");

    const admin = mcpPrincipal("ana", "orders.read contracts.read");
    expect(names((await rpc(admin, await initializeSession(admin), "tools/list")).result.tools)).toContain(
      "audit_events_list",
    );
  });

  it("lists the same tools statelessly (2026-07-28) as in a session, for a member and an administrator", async () => {
    const statelessTools = async (user: string) => {
      const [answer] = await readRpc(await modernPost(mcpPrincipal(user, "orders.read contracts.read"), "tools/list"));
      return names(answer?.result?.tools ?? []);
    };
    const sessionTools = async (user: string) => {
      const token = mcpPrincipal(user, "orders.read contracts.read");
      return names((await rpc(token, await initializeSession(token), "tools/list")).result.tools);
    };
    for (const user of ["mia", "ana"])
      expect((await statelessTools(user)).sort(), user).toEqual((await sessionTools(user)).sort());
    expect(await statelessTools("mia")).not.toContain("audit_events_list");
    expect(await statelessTools("ana")).toContain("audit_events_list");
  });

  it("follows the organization's role caps in both lanes: a tool the cap takes from the role is not listed", async () => {
    const listed = async () => {
      const token = mcpPrincipal("ana", "orders.read contracts.read");
      const [stateless] = await readRpc(await modernPost(token, "tools/list"));
      const session = await rpc(token, await initializeSession(token), "tools/list");
      return { stateless: names(stateless?.result?.tools ?? []), session: names(session.result.tools) };
    };
    expect((await listed()).session).toContain("audit_events_list");
    // Acme's administrators may no longer grant audit.read.
    const cap = ["orders.read", "orders.search", "contracts.read", "contracts.write", "keys.admin", "org.admin"];
    expect((await operator("PATCH", "/organizations/acme", { roleCaps: { admin: cap } })).status).toBe(200);
    try {
      const capped = await listed();
      expect(capped.session).not.toContain("audit_events_list");
      expect(capped.stateless.sort()).toEqual(capped.session.sort());
      expect(capped.session).toContain("orders_search");
    } finally {
      expect((await operator("PATCH", "/organizations/acme", { roleCaps: null })).status).toBe(200);
    }
  });

  it("takes a capped scope from a token issued before the cap, on every call: both MCP lanes and REST", async () => {
    // Harness principals hold no stored grant, so the revocation that follows a narrowed cap cannot reach them:
    // what refuses them below is the request-time cap alone.
    const mcp = mcpPrincipal("ana", "orders.read audit.read");
    const rest = restPrincipal("ana", "audit.read");
    const session = await initializeSession(mcp);
    const call = { name: "audit_events_list", arguments: { limit: 1 } };
    const statuses = async () => ({
      session: (
        await mcpPost(
          mcp,
          { jsonrpc: "2.0", id: 5, method: "tools/call", params: call },
          { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
        )
      ).status,
      stateless: (await modernPost(mcp, "tools/call", call)).status,
      rest: (await fetchAs(rest, `${BASE}/api/v1/audit/events?limit=1`)).status,
    });
    expect(await statuses()).toEqual({ session: 200, stateless: 200, rest: 200 });
    const cap = ["orders.read", "orders.search", "contracts.read", "contracts.write", "keys.admin", "org.admin"];
    expect((await operator("PATCH", "/organizations/acme", { roleCaps: { admin: cap } })).status).toBe(200);
    try {
      expect(await statuses()).toEqual({ session: 403, stateless: 403, rest: 403 });
    } finally {
      expect((await operator("PATCH", "/organizations/acme", { roleCaps: null })).status).toBe(200);
    }
    expect(await statuses()).toEqual({ session: 200, stateless: 200, rest: 200 });
  });

  it("shows clients no source path in any tool's description or schemas, in either lane", async () => {
    const admin = mcpPrincipal("ana", "orders.read contracts.read");
    const [stateless] = await readRpc(await modernPost(admin, "tools/list"));
    const session = await rpc(admin, await initializeSession(admin), "tools/list");
    for (const tools of [stateless?.result?.tools, session.result.tools]) {
      expect(tools.length).toBeGreaterThan(5);
      const text = JSON.stringify(tools);
      expect(text.match(/\bsrc\/[\w./-]+|[\w-]+\.ts\b/g)).toBeNull();
    }
  });
});
