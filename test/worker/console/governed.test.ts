// The console through the governed core (src/web/console/governed.ts): each write and each page view leaves exactly
// one audit record with the correlation id of its answer; a write's record is the same event REST's equivalent
// writes (kind, target, outcome); a console session whose principal lacks the REST route's scope is refused by the
// core, answered from the core's table as the console's error page, audited, and changes nothing.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consoleContext, type ConsoleContext } from "../../../src/web/console/context";
import { serveConsole } from "../../../src/web/console/routes";
import { getAuthorizationServer } from "../../../src/oauth/servers";
import { contractStore } from "../../../src/contracts/store/client";
import { BASE } from "../helpers";
import { callJson, restToken } from "../contracts-api/api-helpers";
import { auditEvents, signedIn, visibleText, type ConsoleBrowser } from "./console-helpers";

const correlationOf = (response: Response) => {
  const id = response.headers.get("x-correlation-id");
  if (!id) throw new Error(`no X-Correlation-Id on a ${response.status} answer`);
  return id;
};

const recordsOf = (correlationId: string) => auditEvents("acme", { correlationId });

async function createKey(ana: ConsoleBrowser, name: string): Promise<{ id: string; correlationId: string }> {
  const created = await ana.post("/admin/keys", {
    csrf: await ana.csrf(),
    name,
    project: "*",
    scope: "contracts.read",
  });
  expect(created.status).toBe(201);
  const row = created.text.split("<tr>").find((r) => r.includes(name) && r.includes('name="id"'))!;
  return { id: /name="id" value="([0-9a-f]{16})"/.exec(row)![1]!, correlationId: correlationOf(created.response) };
}

describe("console writes through the core", () => {
  it("creating and revoking a key each leave exactly one record, REST's event, with the answer's correlation id", async () => {
    const ana = await signedIn("ana");
    const { id, correlationId } = await createKey(ana, "governed key");
    expect(await recordsOf(correlationId)).toMatchObject([
      { kind: "oauth", target: "ci_key_created", outcome: "ok", userId: "ana", clientId: "admin-console" },
    ]);

    const revoked = await ana.post("/admin/keys/revoke", { csrf: await ana.csrf(), id });
    expect(revoked.status).toBe(303);
    const revokeRecords = await recordsOf(correlationOf(revoked.response));
    expect(revokeRecords).toHaveLength(1);
    expect(revokeRecords[0]!.reason).toContain(id);

    // REST's DELETE /api/v1/keys/:id writes the same event (kind, target, outcome) for the same action.
    const rest = await restToken("ana", "keys.admin");
    const other = await createKey(ana, "governed key via REST");
    expect((await callJson(rest, "DELETE", `/keys/${other.id}`)).status).toBe(200);
    const restEvent = (await auditEvents("acme", { target: "ci_key_revoked" })).find((r) =>
      r.reason.includes(other.id),
    )!;
    expect({
      kind: revokeRecords[0]!.kind,
      target: revokeRecords[0]!.target,
      outcome: revokeRecords[0]!.outcome,
    }).toEqual({ kind: restEvent.kind, target: restEvent.target, outcome: restEvent.outcome });

    // Revoking it again changes nothing: one record from the core itself, not a second revocation event.
    const again = await ana.post("/admin/keys/revoke", { csrf: await ana.csrf(), id });
    expect(await recordsOf(correlationOf(again.response))).toMatchObject([
      { kind: "route", target: "POST /admin/keys/revoke", outcome: "ok", reason: "already revoked" },
    ]);
  });

  it("a refused write is one record of the core, its status from the core's table", async () => {
    const ana = await signedIn("ana");
    const unknown = await ana.post("/admin/keys/revoke", { csrf: await ana.csrf(), id: "0123456789abcdef" });
    expect(unknown.status).toBe(404);
    expect(visibleText(unknown.text)).toContain("There is no CI key 0123456789abcdef");
    expect(await recordsOf(correlationOf(unknown.response))).toMatchObject([
      { kind: "route", target: "POST /admin/keys/revoke", outcome: "invalid-input" },
    ]);

    const grant = await ana.post("/admin/clients/revoke", {
      csrf: await ana.csrf(),
      user: "mia",
      grant: "no-such-grant",
    });
    expect(grant.status).toBe(404);
    expect(await recordsOf(correlationOf(grant.response))).toMatchObject([
      {
        kind: "route",
        target: "POST /admin/clients/revoke",
        outcome: "invalid-input",
        reason: expect.stringContaining("no grant"),
      },
    ]);

    const invalid = await ana.post("/admin/keys", { csrf: await ana.csrf(), name: "no scopes", project: "*" });
    expect(invalid.status).toBe(400);
    expect(await recordsOf(correlationOf(invalid.response))).toMatchObject([
      { kind: "route", target: "POST /admin/keys", outcome: "invalid-input" },
    ]);
  });
});

describe("console reads through the core", () => {
  it("a page view is one record of the core under the page's address", async () => {
    const ana = await signedIn("ana");
    for (const [path, target] of [
      ["/admin/keys", "GET /admin/keys"],
      ["/admin/audit?outcome=ok", "GET /admin/audit"],
      ["/admin/projects/no-such-project", "GET /admin/projects/:project"],
    ] as const) {
      const page = await ana.get(path);
      expect(await recordsOf(correlationOf(page.response)), path).toMatchObject([
        {
          kind: "route",
          target,
          outcome: page.status === 200 ? "ok" : "invalid-input",
          userId: "ana",
          clientId: "admin-console",
        },
      ]);
    }
  });
});

describe("the overview's recent activity", () => {
  it("leaves out administrators' own page views, which the audit trail keeps", async () => {
    const ana = await signedIn("ana");
    await ana.get("/admin/clients");
    const overview = visibleText((await ana.get("/admin")).text).split("Recent activity")[1]!;
    expect(overview).not.toContain("GET /admin/clients");
    expect(visibleText((await ana.get("/admin/audit?kind=route")).text)).toContain("GET /admin/clients");
  });
});

describe("a console principal without the REST route's scope", () => {
  /** Ana's real console context, with a principal that lacks `missing` (as a role without it would have). */
  async function contextLacking(ana: ConsoleBrowser, request: Request, missing: string): Promise<ConsoleContext> {
    const headers = new Headers(request.headers);
    headers.set("Cookie", ana.jar.header());
    const access = await consoleContext(
      new Request(request, { headers }),
      env,
      getAuthorizationServer(env).getOAuthApi(env),
      () => [],
    );
    if ("response" in access) throw new Error(`no console context: ${access.response.status}`);
    const { principal } = access.context;
    expect(principal.scopes).toContain(missing);
    return { ...access.context, principal: { ...principal, scopes: principal.scopes.filter((s) => s !== missing) } };
  }

  it("is refused by the core: the error page from its table, one rejected record, nothing changed", async () => {
    const ana = await signedIn("ana");
    const { id } = await createKey(ana, "scope target");
    const csrf = await ana.csrf();
    const post = new Request(`${BASE}/admin/keys/revoke`, {
      method: "POST",
      body: new URLSearchParams({ csrf, id }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
    });
    const context = await contextLacking(ana, post, "keys.admin");
    const refused = await serveConsole(context, "/admin/keys/revoke");
    expect(refused.status).toBe(403);
    const correlationId = correlationOf(refused);
    const text = visibleText(await refused.text());
    expect(text).toContain('needs the scope keys.admin, which your role "admin" does not hold');
    expect(text).toContain(correlationId);
    expect(await recordsOf(correlationId)).toMatchObject([
      {
        kind: "route",
        target: "POST /admin/keys/revoke",
        outcome: "rejected-by-policy",
        reason: "missing scope keys.admin",
      },
    ]);
    expect((await contractStore(env, "acme").getKey(id))?.revokedAt).toBeNull();

    const read = await contextLacking(ana, new Request(`${BASE}/admin/audit`), "audit.read");
    const page = await serveConsole(read, "/admin/audit");
    expect(page.status).toBe(403);
    expect(visibleText(await page.text())).toContain("needs the scope audit.read");
    expect(await recordsOf(correlationOf(page))).toMatchObject([
      { kind: "route", target: "GET /admin/audit", outcome: "rejected-by-policy" },
    ]);
  });
});
