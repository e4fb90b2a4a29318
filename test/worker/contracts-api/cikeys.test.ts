import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { mcpPost } from "../helpers";
import { call, callJson, createKey, restToken } from "./api-helpers";

let ana: string;
let gus: string;

beforeAll(async () => {
  ana = await restToken("ana", "keys.admin contracts.read");
  gus = await restToken("gus", "keys.admin contracts.read");
});

describe("CI keys", () => {
  it("are created by an admin, shown once, listed without secrets and usable on the REST API", async () => {
    const created = await callJson(ana, "POST", "/keys", { name: "orders CI", projects: ["orders"], scopes: ["snapshots.write", "contracts.read"] });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^arb_ci_acme_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.body.key).toMatchObject({ name: "orders CI", projects: ["orders"], scopes: ["snapshots.write", "contracts.read"], status: "active", createdBy: expect.stringContaining("ana") });

    const listed = await call(ana, "GET", "/keys");
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(text).toContain(created.body.key.id);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(-43));
    expect(text).not.toMatch(/sha256:|secret/i);

    const whoami = await callJson(secret, "GET", "/whoami");
    expect(whoami.status).toBe(200);
    expect(whoami.body).toMatchObject({ organization: { id: "acme" }, clientId: `ci-key:${created.body.key.id}`, scopes: ["snapshots.write", "contracts.read"] });
  });

  it("never reach /mcp", async () => {
    const { secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const response = await mcpPost(secret, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(response.status).toBe(401);
  });

  it("are refused with a wrong secret or a malformed value", async () => {
    const { secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const last = secret.at(-1) === "A" ? "B" : "A";
    expect((await call(`${secret.slice(0, -1)}${last}`, "GET", "/whoami")).status).toBe(401);
    expect((await call(secret.replace("arb_ci_acme_", "arb_ci_globex_"), "GET", "/whoami")).status).toBe(401);
    expect((await call("arb_ci_nonsense", "GET", "/whoami")).status).toBe(401);
  });

  it("stop working when revoked, and revocation is recorded", async () => {
    const { id, secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    expect((await call(secret, "GET", "/whoami")).status).toBe(200);
    const revoked = await callJson(ana, "DELETE", `/keys/${id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toMatchObject({ id, status: "revoked", revokedBy: expect.stringContaining("ana") });
    expect(revoked.body.key.revokedAt).toEqual(expect.any(String));
    expect((await call(secret, "GET", "/whoami")).status).toBe(401);
    const listed = await callJson(ana, "GET", "/keys");
    expect(listed.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({ status: "revoked" });
  });

  it("stop working after their expiry", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const { id, secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"], expiresAt });
    expect((await call(secret, "GET", "/whoami")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now() + 50)));
    expect((await call(secret, "GET", "/whoami")).status).toBe(401);
    const listed = await callJson(ana, "GET", "/keys");
    expect(listed.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({ status: "expired" });
  });

  it("refuse bad requests with a clear message", async () => {
    const adminScope = await callJson(ana, "POST", "/keys", { name: "x", projects: ["*"], scopes: ["keys.admin"] });
    expect(adminScope.status).toBe(400);
    expect(adminScope.body.error.code).toBe("invalid_request");
    expect(adminScope.body.error.message).toContain("scopes");
    const past = await callJson(ana, "POST", "/keys", { name: "x", projects: ["*"], scopes: ["contracts.read"], expiresAt: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toContain("past");
    const badProject = await callJson(ana, "POST", "/keys", { name: "x", projects: ["../etc"], scopes: ["contracts.read"] });
    expect(badProject.status).toBe(400);
    const notJson = await callJson(ana, "POST", "/keys", "name=x", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("invalid_json");
    const unknown = await callJson(ana, "DELETE", "/keys/0123456789abcdef");
    expect(unknown.status).toBe(404);
  });

  it("need keys.admin", async () => {
    const developer = await restToken("dev", "contracts.read contracts.write");
    const response = await call(developer, "POST", "/keys", { name: "x", projects: ["*"], scopes: ["contracts.read"] });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain("insufficient_scope");
    const ciKey = (await createKey(ana, { projects: ["*"], scopes: ["contracts.read", "contracts.write", "snapshots.write"] })).secret;
    expect((await call(ciKey, "GET", "/keys")).status).toBe(403);
  });

  it("of one organization are invisible to and irrevocable by another", async () => {
    const { id, secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const globexList = await call(gus, "GET", "/keys");
    expect(await globexList.text()).not.toContain(id);
    expect((await callJson(gus, "DELETE", `/keys/${id}`)).status).toBe(404);
    expect((await call(secret, "GET", "/whoami")).status).toBe(200);
    const globexKey = await createKey(gus, { projects: ["*"], scopes: ["contracts.read"] });
    const whoami = await callJson(globexKey.secret, "GET", "/whoami");
    expect(whoami.body.organization.id).toBe("globex");
    expect(await (await call(ana, "GET", "/keys")).text()).not.toContain(globexKey.id);
  });

  it("are unauthenticated without a bearer token", async () => {
    const response = await SELF.fetch("http://localhost:8787/api/v1/keys");
    expect(response.status).toBe(401);
  });
});
