// "Is this break used?" (docs/ci.md "Is this break used?"): recorded traffic and the ingest route feed the project's
// usage index (counts only); every error of a later verdict carries the evidence: how many exchanges of its
// operation the window holds, and of the status and property it touches; "never seen" is said too and turns an error
// into a warning only under the organization's policy; bad ingest bodies are refused with what to fix.
import { beforeAll, describe, expect, it } from "vitest";
import { countExchangeUsage, usageTarget } from "../../../src/engine/verdict/usage";
import { indexDocument } from "../../../src/engine/normalize/normalize-document";
import { operator } from "../directory/helpers";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson } from "./api-helpers";
import { breakingSnapshot, ordersContract, text } from "./fixtures";

const ORG = "usage-co";
let ana: Caller;
const today = () => new Date().toISOString().slice(0, 10);
const ORDER = { id: "ord_1", total: 12.5 };

const ndjson = (lines: object[]) => lines.map((line) => JSON.stringify(line)).join("\n");

beforeAll(async () => {
  expect(
    (await operator("POST", "/organizations", { id: ORG, name: "Usage Co", emailDomains: ["usage.example"] })).status,
  ).toBe(201);
  ana = restPrincipal("ana", "contracts.read contracts.write snapshots.write org.admin", { organizationId: ORG });
  expect((await callJson(ana, "POST", "/projects/shop/contracts", text(ordersContract()))).status).toBe(201);
  const traffic = ndjson([
    ...[1, 2, 3].map(() => ({ method: "GET", path: "/orders/ord_1", status: 200, responseBody: ORDER })),
    { method: "GET", path: "/orders/ord_9", status: 404, responseBody: { title: "missing" } },
    { method: "GET", path: "/orders", status: 200, responseBody: [ORDER, ORDER] },
  ]);
  const recorded = await call(ana, "POST", "/projects/shop/exchanges?commit=t1", traffic, {
    "Content-Type": "application/x-ndjson",
  });
  expect(recorded.status).toBe(201);
});

describe("the usage index", () => {
  it("counts operations, statuses, parameters and property paths, never values", () => {
    const index = indexDocument(ordersContract({}) as unknown as Parameters<typeof indexDocument>[0]);
    const counts = countExchangeUsage(index, [
      {
        method: "GET",
        target: "/orders/ord_1?secret=abc",
        status: 200,
        requestHeaders: { authorization: "Bearer t0ken" },
        responseHeaders: {},
        // A key the contract does not declare (here an e-mail) is data, not a name: not counted.
        responseBody: JSON.stringify({ id: "ord_1", total: 3, "ana@example.com": { total: 1 } }),
      },
    ]);
    const text = JSON.stringify(counts);
    for (const value of ["ord_1", "abc", "secret", "t0ken", "ana@example.com"]) expect(text).not.toContain(value);
    expect(counts).toContainEqual({ operation: "GET /orders/{}", status: "200", field: "response:/total", count: 1 });
    expect(counts.filter((count) => count.field.startsWith("response:")).map((count) => count.field)).toEqual([
      "response:/id",
      "response:/total",
    ]);
    expect(
      usageTarget("GET /orders/{id}#/responses/200/content/application~1json/schema/items/properties/total"),
    ).toMatchObject({
      field: "response:/*/total",
      status: "200",
    });
    expect(usageTarget("GET /orders#/parameters/query/status")).toMatchObject({ field: "parameter:query:status" });
  });

  it("gives every break of a snapshot its evidence, in the answer and every format", async () => {
    const upload = await callJson(ana, "POST", "/projects/shop/snapshots?commit=b1", text(breakingSnapshot()));
    expect(upload.status).toBe(201);
    const total = upload.body.verdict.violations.find((v: any) => v.location.includes("properties/total"));
    expect(total).toMatchObject({
      severity: "error",
      usage: { days: 30, exchanges: 4, touched: { what: "responses 200 carrying /total", count: 3 } },
    });
    const create = upload.body.verdict.violations.find((v: any) => v.location.startsWith("POST /orders"));
    expect(create.usage).toEqual({ days: 30, exchanges: 0, touched: expect.objectContaining({ count: 0 }) });

    const id = upload.body.snapshot.id;
    const markdown = await (await call(ana, "GET", `/projects/shop/snapshots/${id}?format=markdown`)).text();
    expect(markdown).toContain(
      "4 recorded exchanges of GET /orders/\\{id\\} in the last 30 days, 3 of them responses 200 carrying /total",
    );
    expect(markdown).toContain("never seen in the recorded traffic of the last 30 days");
    const sarif = JSON.parse(await (await call(ana, "GET", `/projects/shop/snapshots/${id}?format=sarif`)).text());
    expect(sarif.runs[0].results.some((r: any) => r.properties.usage?.touched?.count === 3)).toBe(true);
    const junit = await (await call(ana, "GET", `/projects/shop/snapshots/${id}?format=junit`)).text();
    expect(junit).toContain("3 of them responses 200 carrying /total");
    const github = await (await call(ana, "GET", `/projects/shop/snapshots/${id}?format=github`)).text();
    expect(github).toContain("never seen in the recorded traffic");
  });

  it("takes counts from a gateway, and they count toward the evidence", async () => {
    const posted = await callJson(ana, "POST", "/projects/shop/usage", {
      day: today(),
      counts: [
        { operation: "POST /orders", count: 40 },
        { operation: "POST /orders", field: "request:/total", count: 40 },
      ],
    });
    expect(posted.status).toBe(201);
    expect(posted.body.counts).toBe(2);
    const draft = await callJson(ana, "POST", "/projects/shop/drafts", text(breakingSnapshot()));
    const create = draft.body.verdict.violations.find((v: any) => v.location.startsWith("POST /orders"));
    expect(create.usage.exchanges).toBe(40);
  });

  it("makes a break of an operation no recorded exchange called a warning only under the organization's policy", async () => {
    // A project whose traffic only ever called GET /orders: POST /orders is unused in the window.
    expect((await callJson(ana, "POST", "/projects/quiet/contracts", text(ordersContract()))).status).toBe(201);
    const traffic = ndjson([{ method: "GET", path: "/orders", status: 200, responseBody: [ORDER] }]);
    expect(
      (await call(ana, "POST", "/projects/quiet/exchanges", traffic, { "Content-Type": "application/x-ndjson" }))
        .status,
    ).toBe(201);
    const before = await callJson(ana, "POST", "/projects/quiet/snapshots?commit=u1", text(breakingSnapshot()));
    expect(before.body.verdict.approved).toBe(false);
    const policy = await callJson(ana, "PATCH", "/organization", {
      conformance: { usage: { unusedBreaks: "warning" } },
    });
    expect(policy.status).toBe(200);
    const after = await callJson(ana, "POST", "/projects/quiet/snapshots?commit=u2", text(breakingSnapshot()));
    const unused = after.body.verdict.violations.find((v: any) => v.location.startsWith("POST /orders"));
    expect(unused).toMatchObject({ severity: "warning", usage: { exchanges: 0 } });
    expect(after.body.verdict.summary).toContainEqual({ rule: unused.rule, severity: "warning", count: 1 });
    // GET /orders/{id} was never called either; a project where it was keeps its break an error.
    expect(after.body.verdict.approved).toBe(true);
    const used = await callJson(ana, "POST", "/projects/shop/snapshots?commit=u3", text(breakingSnapshot()));
    expect(used.body.verdict.approved).toBe(false);
    expect(used.body.verdict.violations.find((v: any) => v.location.includes("total")).severity).toBe("error");
  });

  it("refuses ingest bodies it cannot use, saying what to fix", async () => {
    const future = await callJson(ana, "POST", "/projects/shop/usage", {
      day: "2999-01-01",
      counts: [{ operation: "GET /orders", count: 1 }],
    });
    expect(future.status).toBe(400);
    expect(future.body.detail).toContain("in the future");
    const noStatus = await callJson(ana, "POST", "/projects/shop/usage", {
      day: today(),
      counts: [{ operation: "GET /orders", field: "response:/total", count: 1 }],
    });
    expect(noStatus.status).toBe(400);
    expect(noStatus.body.detail).toContain("needs the status");
    const value = await callJson(ana, "POST", "/projects/shop/usage", {
      day: today(),
      counts: [{ operation: "GET /orders", field: "total=12", count: 1 }],
    });
    expect(value.status).toBe(400);
    const reader = restPrincipal("mia", "contracts.read", { organizationId: ORG });
    const refused = await callJson(reader, "POST", "/projects/shop/usage", { day: today(), counts: [] });
    expect(refused.status).toBe(403);
  });
});
