/**
 * Recorded traffic over REST (POST/GET /api/v1/projects/:project/exchanges) at the REST handler (harness.ts): HAR and NDJSON
 * uploads checked against the stored contract, each finding located by operation, exchange index and pointer;
 * malformed and over-limit uploads refused with what is wrong; the run stored as the project's latest, visible
 * over REST (with ?format=), in the MCP tool spec_exchanges_latest and on the console, never to another organization.
 */
import { Validator } from "@cfworker/json-schema";
import { env } from "cloudflare:test";
import { auditTrailIn } from "../../../src/audit/trail";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_EXCHANGES } from "../../../src/engine/exchanges/exchange";
import sarifSchema from "../../fixtures/sarif/sarif-2.1.0.schema.json";
import { signedIn } from "../console/console-helpers";
import { callTool, connectPrincipal } from "../contracts-mcp/helpers";
import { conformingHar, exchangeContract, GOOD_ORDER, har, NEW_ORDER } from "../engine/exchanges/fixtures";
import { call, callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";

let ci: Caller;
let reader: Caller;

const upload = (body: unknown, query = "", contentType = "application/json", token = ci) =>
  callJson(
    token,
    "POST",
    `/projects/traffic/exchanges${query}`,
    typeof body === "string" ? body : JSON.stringify(body),
    { "Content-Type": contentType },
  );

const locations = (body: any) =>
  body.verdict.violations.map((v: { rule: string; location: string }) => [v.rule, v.location]);

beforeAll(async () => {
  ci = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
  reader = restPrincipal("ana", "contracts.read");
  const contract = await callJson(ci, "POST", "/projects/traffic/contracts", JSON.stringify(exchangeContract()), {
    "Content-Type": "application/json",
  });
  expect(contract.status).toBe(201);
});

describe("POST /projects/:project/exchanges", () => {
  it("approves a HAR of conforming exchanges and records the run", async () => {
    const { status, body } = await upload(conformingHar(), "?commit=aaaa111&branch=main");
    expect(status).toBe(201);
    expect(body.verdict).toEqual({ approved: true, totalViolations: 0, violations: [], summary: [] });
    expect(body.run).toMatchObject({
      project: "traffic",
      contractVersion: 1,
      format: "har",
      exchangeCount: 5,
      approved: true,
      commit: "aaaa111",
      branch: "main",
      uploadedBy: "ana",
    });
    expect(body.run.uploadDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(body.markdown).toContain("Approved");
  });

  it("rejects real violations, each named by exchange index, operation and pointer", async () => {
    const { status, body } = await upload(
      har([
        {
          method: "GET",
          url: "https://api.example.com/v1/orders/ord_1",
          status: 200,
          responseBody: { ...GOOD_ORDER, total: "12.50" },
        },
        {
          method: "POST",
          url: "/orders",
          status: 201,
          requestHeaders: { "Idempotency-Key": "key-12345678" },
          requestBody: { ...NEW_ORDER, total: -5 },
          responseBody: GOOD_ORDER,
        },
        {
          method: "GET",
          url: "/orders?status=PAID",
          status: 200,
          responseHeaders: { "X-Total-Count": "0" },
          responseBody: [],
        },
        { method: "GET", url: "/orders/ord_1", status: 418, responseBody: {} },
        { method: "GET", url: "/v1/refunds/r_1", status: 200, responseBody: {} },
        {
          method: "POST",
          url: "/orders",
          status: 201,
          requestHeaders: { "Idempotency-Key": "key-12345678" },
          requestBody: { ...NEW_ORDER, id: "ord_7" },
          responseBody: GOOD_ORDER,
        },
      ]),
      "?commit=bbbb222",
    );
    expect(status).toBe(201);
    expect(body.verdict.approved).toBe(false);
    expect(locations(body)).toEqual([
      ["response-invalid", "GET /orders/{id}#exchange/0/response/body/total"],
      ["request-invalid", "POST /orders#exchange/1/request/body/total"],
      ["request-invalid", "GET /orders#exchange/2/request/query/limit"],
      ["undocumented-status-code", "GET /orders/{id}#exchange/3/response/status"],
      ["undocumented-operation", "GET /v1/{?}/{?}#exchange/4"],
      ["request-invalid", "POST /orders#exchange/5/request/body/id"],
    ]);
    const messages = body.verdict.violations.map((v: { message: string }) => v.message);
    expect(messages[0]).toMatch(/^the response body \(200\): .*number/i);
    expect(messages[2]).toBe('the required query parameter "limit" is missing');
    expect(messages[3]).toContain("status 418 is not declared for GET /orders/{id}");
    expect(messages[4]).toContain(
      "no operation of the contract matches exchange 4 (GET /v1/{?}/{?}, where {?} stands for a recorded segment",
    );
    expect(JSON.stringify(messages)).not.toContain("r_1");
    expect(messages[5]).toContain("readOnly");
    expect(body.run).toMatchObject({ approved: false, errorCount: 6, totalViolations: 6 });
  });

  it("reads NDJSON, by Content-Type or by content", async () => {
    const lines = [
      JSON.stringify({ method: "GET", path: "/orders/ord_1", status: 200, responseBody: GOOD_ORDER }),
      JSON.stringify({
        method: "GET",
        url: "https://api.example.com/v1/orders/ord_2",
        status: 200,
        responseBody: { id: "ord_2", total: 1 },
      }),
    ].join("\n");
    for (const contentType of ["application/x-ndjson", "text/plain"]) {
      const { status, body } = await upload(lines, "", contentType);
      expect(status).toBe(201);
      expect(body.run.format).toBe("ndjson");
      expect(locations(body)).toEqual([["response-invalid", "GET /orders/{id}#exchange/1/response/body"]]);
      expect(body.verdict.violations[0].message).toContain("status");
    }
  });

  it("checks against ?contractVersion= instead of the active version", async () => {
    const relaxed = exchangeContract() as { paths: Record<string, any> };
    relaxed.paths["/refunds/{id}"] = { get: { responses: { "200": { description: "ok" } } } };
    expect(
      (
        await callJson(ci, "POST", "/projects/traffic/contracts?label=v2", JSON.stringify(relaxed), {
          "Content-Type": "application/json",
        })
      ).status,
    ).toBe(201);
    const refund = har([{ method: "GET", url: "/refunds/r_1", status: 200 }]);
    expect((await upload(refund)).body.verdict.approved).toBe(true);
    const old = await upload(refund, "?contractVersion=1");
    expect(old.body.run.contractVersion).toBe(1);
    expect(locations(old.body)).toEqual([["undocumented-operation", "GET /{?}/{?}#exchange/0"]]);
    expect((await upload(refund, "?contractVersion=9")).status).toBe(404);
    // Back to version 1 as the active one for the rest of the file.
    expect((await call(ci, "POST", "/projects/traffic/contracts/1/activate")).status).toBe(200);
  });

  it("says what is wrong with a malformed HAR (422) and stores nothing", async () => {
    const before = (await callJson(reader, "GET", "/projects/traffic/exchanges")).body.runs.length;
    const broken = {
      log: {
        version: "1.2",
        entries: [
          {
            request: { method: "GET", url: "/orders/ord_1", headers: [] },
            response: { status: "200", headers: [], content: {} },
          },
        ],
      },
    };
    const { status, body } = await upload(broken);
    expect(status).toBe(422);
    expect(body.error.code).toBe("invalid_exchanges");
    expect(body.error.message).toContain("/log/entries/0/response/status");
    expect(body.error.details.problems).toEqual([
      {
        pointer: "/log/entries/0/response/status",
        message: 'the status must be an HTTP status code from 100 to 599, got "200"',
      },
    ]);
    const notJson = await upload("{ log: ", "");
    expect(notJson.status).toBe(422);
    expect(notJson.body.error.message).toContain("not valid JSON");
    expect((await upload({ log: { entries: [] } })).body.error.message).toContain("holds no exchanges");
    expect(
      (await call(ci, "POST", "/projects/traffic/exchanges", "", { "Content-Type": "application/json" })).status,
    ).toBe(400);
    expect((await upload(conformingHar(), "?contractVersion=first")).status).toBe(400);
    expect((await callJson(reader, "GET", "/projects/traffic/exchanges")).body.runs.length).toBe(before);
  });

  it("refuses more exchanges than the limit (422) and a body over the limit (413)", async () => {
    const line = JSON.stringify({ method: "GET", path: "/orders/ord_1", status: 200 });
    const many = await upload(
      Array.from({ length: MAX_EXCHANGES + 1 }, () => line).join("\n"),
      "",
      "application/x-ndjson",
    );
    expect(many.status).toBe(422);
    expect(many.body.error).toMatchObject({ code: "too_many_exchanges", details: { count: MAX_EXCHANGES + 1 } });
    expect(many.body.error.message).toContain("split the recording");
    const big = await upload(
      JSON.stringify({ method: "GET", path: "/orders/ord_1", status: 200, responseBody: "x".repeat(1024 * 1024 + 10) }),
      "",
      "application/x-ndjson",
    );
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({
      code: "exchange_body_too_large",
      details: { pointer: "/lines/1/responseBody" },
    });
  });

  it("refuses a recording over 15 MiB with 413 before reading it", async () => {
    const response = await call(ci, "POST", "/projects/traffic/exchanges", new Uint8Array(15 * 1024 * 1024 + 1), {
      "Content-Type": "application/json",
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).error.message).toContain("The recording is larger than the limit");
  });

  it("leaves one audit record with the count and digest, never the traffic", async () => {
    const response = await call(
      ci,
      "POST",
      "/projects/traffic/exchanges?commit=dddd444",
      JSON.stringify(conformingHar()),
      { "Content-Type": "application/json" },
    );
    expect(response.status).toBe(201);
    const answer = (await response.json()) as any;
    const correlationId = response.headers.get("x-correlation-id")!;
    const { events } = await auditTrailIn(env.AUDIT_LOG)("acme").query("acme", { correlationId, limit: 5 });
    expect(events).toHaveLength(1);
    expect(events[0]!.reason).toBe(`5 exchanges (har), 0 errors, upload ${answer.run.uploadDigest.slice(0, 23)}`);
    expect(JSON.stringify(events[0])).not.toContain("key-12345678");
  });

  it("needs snapshots.write to upload and a known project", async () => {
    expect((await upload(conformingHar(), "", "application/json", reader)).status).toBe(403);
    const unknown = await callJson(ci, "POST", "/projects/nowhere/exchanges", JSON.stringify(conformingHar()), {
      "Content-Type": "application/json",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_project");
  });
});

describe("the stored run", () => {
  let latestId = 0;

  beforeAll(async () => {
    const rejected = await upload(
      har([{ method: "GET", url: "/orders/ord_1", status: 200, responseBody: { ...GOOD_ORDER, status: "LOST" } }]),
      "?commit=cccc333",
    );
    expect(rejected.status).toBe(201);
    latestId = rejected.body.run.id;
  });

  it("is the latest over REST, by id, in the list, and renders as SARIF", async () => {
    const latest = await callJson(reader, "GET", "/projects/traffic/exchanges/latest");
    expect(latest.status).toBe(200);
    expect(latest.body.run).toMatchObject({ id: latestId, commit: "cccc333", approved: false });
    expect(latest.body.verdict.violations).toEqual([
      expect.objectContaining({
        rule: "response-invalid",
        location: "GET /orders/{id}#exchange/0/response/body/status",
      }),
    ]);
    expect((await callJson(reader, "GET", `/projects/traffic/exchanges/${latestId}`)).body.run.id).toBe(latestId);
    const list = await callJson(reader, "GET", "/projects/traffic/exchanges?limit=2");
    expect(list.body.runs.map((run: { id: number }) => run.id)[0]).toBe(latestId);
    expect(list.body.nextBefore).toEqual(expect.any(Number));
    const sarif = await call(reader, "GET", "/projects/traffic/exchanges/latest?format=sarif");
    expect(sarif.headers.get("content-type")).toContain("application/sarif+json");
    const log = (await sarif.json()) as any;
    const validator = new Validator(structuredClone(sarifSchema) as object, "4", false);
    expect(validator.validate(log).valid).toBe(true);
    expect(log.runs[0].results[0].ruleId).toBe("response-invalid");
    expect(log.runs[0].tool.driver.rules[0].shortDescription.text).toContain("response body");
    const junit = await call(reader, "GET", `/projects/traffic/exchanges/${latestId}?format=junit`);
    expect(await junit.text()).toContain("response-invalid");
    expect((await callJson(reader, "GET", "/projects/traffic/exchanges/999999")).status).toBe(404);
  });

  it("is what spec_exchanges_latest returns over MCP", async () => {
    const agent = await connectPrincipal("ana");
    const result = await callTool(agent, "spec_exchanges_latest", { project: "traffic" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      project: "traffic",
      run: { id: latestId, commit: "cccc333" },
      approved: false,
      totalViolations: 1,
    });
    expect(result.structuredContent.violations[0].location).toBe("GET /orders/{id}#exchange/0/response/body/status");
    expect(result.content[0].text).toContain(`Recorded traffic run #${latestId}`);
  });

  it("is on the console's projects page", async () => {
    const page = await (await signedIn("ana")).get("/admin/projects");
    const row = page.text.split("<tr>").find((entry) => entry.includes(">traffic<"))!;
    expect(row).toMatch(/recorded traffic run \d+ against contract v1: 1 exchange/);
    expect(row).toContain("cccc333");
  });

  it("is invisible to another organization", async () => {
    const globex = restPrincipal("gus", "contracts.read contracts.write snapshots.write");
    expect((await callJson(globex, "GET", "/projects/traffic/exchanges/latest")).status).toBe(404);
    expect((await callJson(globex, "GET", `/projects/traffic/exchanges/${latestId}`)).status).toBe(404);
    // Even with a project of the same name in its own organization, it sees only its own runs.
    expect(
      (
        await callJson(globex, "POST", "/projects/traffic/contracts", JSON.stringify(exchangeContract()), {
          "Content-Type": "application/json",
        })
      ).status,
    ).toBe(201);
    expect((await callJson(globex, "GET", "/projects/traffic/exchanges")).body.runs).toEqual([]);
    const agent = await connectPrincipal("gus");
    const result = await callTool(agent, "spec_exchanges_latest", { project: "traffic" });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain("no recorded traffic yet");
  });
});
