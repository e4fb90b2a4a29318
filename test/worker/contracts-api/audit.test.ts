// Every REST call leaves one audit record; records never hold a CI key, a token or a document.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AUDIT_OUTCOMES } from "../../../src/audit/record";
import { call, callJson, restToken, storedAuditRecords } from "./api-helpers";
import { ordersContract, text } from "./fixtures";

let ana: string;

beforeAll(async () => {
  ana = await restToken("ana", "keys.admin contracts.read contracts.write snapshots.write");
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("audit of the CI API", () => {
  it("writes one record per call with the route, outcome and a digest that holds neither key nor document", async () => {
    const spy = vi.spyOn(console, "log");
    const started = Date.now();
    const document = text(ordersContract({ info: { title: "Audited", version: "1" } }));
    await callJson(ana, "POST", "/projects/audited/contracts", document);
    const created = await callJson(ana, "POST", "/keys", {
      name: "audit key",
      projects: ["audited"],
      scopes: ["snapshots.write"],
    });
    const secret: string = created.body.secret;
    await callJson(secret, "POST", "/projects/audited/snapshots?commit=c1", document);
    await call(secret, "GET", "/projects/audited/snapshots");
    await callJson(ana, "DELETE", `/keys/${created.body.key.id}`);
    await callJson(ana, "POST", "/projects/audited/snapshots?commit=c2", "not openapi");

    const records = await storedAuditRecords("acme", started, { kind: "route" });
    expect(records.map((r) => [r.target, r.outcome])).toEqual([
      ["POST /api/v1/projects/:project/contracts", "ok"],
      ["POST /api/v1/keys", "ok"],
      ["POST /api/v1/projects/:project/snapshots", "ok"],
      ["GET /api/v1/projects/:project/snapshots", "rejected-by-policy"],
      ["DELETE /api/v1/keys/:id", "ok"],
      ["POST /api/v1/projects/:project/snapshots", "invalid-input"],
    ]);
    expect(records[3]!.reason).toBe("missing scope contracts.read");
    expect(records[5]!.reason).toBe("invalid_document");
    expect(records[2]).toMatchObject({ organizationId: "acme", clientId: `ci-key:${created.body.key.id}` });
    for (const record of records) {
      expect(AUDIT_OUTCOMES).toContain(record.outcome);
      expect(record.argumentsDigest === "" || /^sha256:[0-9a-f]{64}$/.test(String(record.argumentsDigest))).toBe(true);
    }
    // Neither the stored records nor anything logged holds the key, the token or the document.
    const everything = [JSON.stringify(records), ...spy.mock.calls.map((args) => args.map(String).join(" "))].join(
      "\n",
    );
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(secret.slice(-43));
    expect(everything).not.toContain(ana);
    expect(everything).not.toContain('"openapi"');
  });
});
