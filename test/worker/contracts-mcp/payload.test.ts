/**
 * validate_response_payload through MCP: leaf errors with JSON pointer, keyword and message; concrete paths;
 * missing-schema as a normal rejected result; the media type chosen by contentType; bad input as isError; and the validator cache (no rebuild for the
 * same contract version and operation), observed through the tool result's _meta.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GOOD_ORDER, ordersContract } from "./fixtures";
import { callTool, connectPrincipal, ciPrincipal, text, uploadContract, type Agent, type Caller } from "./helpers";

let ci: Caller;
let agent: Agent;

beforeAll(async () => {
  ci = ciPrincipal("ana");
  agent = await connectPrincipal("ana");
  await uploadContract(ci, "orders", ordersContract());
});

const validate = (args: Record<string, unknown>) =>
  callTool(agent, "validate_response_payload", {
    project: "orders",
    method: "GET",
    path: "/orders/{id}",
    status: 200,
    ...args,
  });

describe("validate_response_payload", () => {
  it("approves a payload that matches the contract's schema, for a concrete path", async () => {
    const result = await validate({ path: "/orders/ord_1001", payload: GOOD_ORDER });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      project: "orders",
      approved: true,
      operation: "GET /orders/{id}",
      responseKey: "200",
      errors: [],
      violations: [],
      contract: { version: 1 },
    });
  });

  it("reports each leaf error with its JSON pointer, keyword and message", async () => {
    const payload = { id: "ord_1", total: -3, status: "LOST", lines: [{ quantity: 1.5 }] };
    const result = await validate({ path: "/orders/ord_1", payload });
    expect(result.isError).toBeUndefined();
    const { approved, errors } = result.structuredContent;
    expect(approved).toBe(false);
    const byPointer = Object.fromEntries(
      errors.map((e: { pointer: string; keyword: string }) => [e.pointer, e.keyword]),
    );
    expect(byPointer).toMatchObject({
      "/total": "minimum",
      "/status": "enum",
      "/lines/0": "required",
      "/lines/0/quantity": "type",
    });
    for (const error of errors) expect(error.message).toEqual(expect.any(String));
    expect(text(result)).toContain("/status [enum]");
  });

  it("accepts the payload as JSON text", async () => {
    const result = await validate({ payload: JSON.stringify({ ...GOOD_ORDER, total: "12" }) });
    expect(result.structuredContent.approved).toBe(false);
    expect(result.structuredContent.errors).toContainEqual(
      expect.objectContaining({ pointer: "/total", keyword: "type" }),
    );
  });

  it("answers missing-schema (approved: false, not an error) when the contract declares no JSON schema", async () => {
    const result = await validate({ method: "DELETE", path: "/orders/ord_9", status: 202, payload: { ok: true } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      approved: false,
      operation: "DELETE /orders/{id}",
      responseKey: "202",
      errors: [],
    });
    expect(result.structuredContent.violations).toEqual([
      expect.objectContaining({ rule: "missing-schema", severity: "error" }),
    ]);
    expect(text(result)).toContain("missing-schema");
  });

  it("picks the schema by contentType when one status declares application/json and application/problem+json", async () => {
    // 400 has two bodies with different schemas; a problem document is valid only under the problem schema.
    const contract = {
      openapi: "3.1.0",
      info: { title: "Refunds", version: "1.0.0" },
      security: [{ bearer: [] }],
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      paths: {
        "/refunds/{id}": {
          get: {
            operationId: "getRefund",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            responses: {
              "400": {
                description: "bad request",
                content: {
                  "application/json": {
                    schema: { type: "object", required: ["code"], properties: { code: { type: "integer" } } },
                  },
                  "application/problem+json": {
                    schema: {
                      type: "object",
                      required: ["title", "status"],
                      properties: { title: { type: "string" }, status: { type: "integer" } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    await uploadContract(ci, "refunds", contract);
    const problem = { title: "Refund id malformed", status: 400 };
    const check = (contentType?: string) =>
      callTool(agent, "validate_response_payload", {
        project: "refunds",
        method: "GET",
        path: "/refunds/r_1",
        status: 400,
        payload: problem,
        ...(contentType ? { contentType } : {}),
      });

    for (const contentType of ["application/problem+json", "application/problem+json; charset=utf-8"]) {
      const result = await check(contentType);
      expect(result.isError, contentType).toBeUndefined();
      expect(result.structuredContent, contentType).toMatchObject({
        approved: true,
        operation: "GET /refunds/{id}",
        responseKey: "400",
        errors: [],
        violations: [],
      });
    }

    // Without contentType the application/json schema is used; with it, explicitly so: both reject the problem body.
    for (const contentType of [undefined, "application/json"]) {
      const result = await check(contentType);
      expect(result.isError, String(contentType)).toBeUndefined();
      expect(result.structuredContent.approved, String(contentType)).toBe(false);
      expect(result.structuredContent.errors, String(contentType)).toContainEqual(
        expect.objectContaining({ pointer: "", keyword: "required" }),
      );
    }

    // A media type the response declares no JSON schema for: a normal rejected result, not an error.
    const html = await check("text/html");
    expect(html.isError).toBeUndefined();
    expect(html.structuredContent).toMatchObject({
      approved: false,
      operation: "GET /refunds/{id}",
      responseKey: "400",
      errors: [],
    });
    expect(html.structuredContent.violations).toEqual([
      expect.objectContaining({
        rule: "missing-schema",
        severity: "error",
        message: expect.stringContaining("text/html"),
      }),
    ]);
    // The next step names the content types that do have schemas, rather than claiming they have none.
    expect(html.structuredContent.violations[0].message).toMatch(
      /no JSON schema for text\/html .*\(it declares application\/json, application\/problem\+json\).*pass the content type the payload really has/,
    );
  });

  it("answers undocumented-operation for a path the contract lacks", async () => {
    const result = await validate({ path: "/invoices/1", payload: {} });
    expect(result.structuredContent.violations).toEqual([expect.objectContaining({ rule: "undocumented-operation" })]);
  });

  it("refuses a payload string that is not JSON, saying how to send it", async () => {
    const result = await validate({ payload: "{ id: ord_1" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/payload: the string is not valid JSON text.*Send the response body as a JSON object/);
  });

  it("refuses bad arguments with the field named", async () => {
    const result = await validate({ method: "FETCH", payload: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/method: an HTTP method/);
  });

  it("cannot validate without a project: isError with the next step", async () => {
    const result = await callTool(agent, "validate_response_payload", {
      project: "ghost",
      method: "GET",
      path: "/x",
      status: 200,
      payload: {},
    });
    expect(result.isError).toBe(true);
    expect(result._meta.cannotVerify).toBe("unknown_project");
  });

  it("does not rebuild the validator for the same contract version and operation", async () => {
    const list = (payload: unknown) =>
      callTool(agent, "validate_response_payload", {
        project: "orders",
        method: "GET",
        path: "/orders",
        status: 200,
        payload,
      });
    const first = await list([GOOD_ORDER]);
    expect(first.structuredContent.approved).toBe(true);
    expect(first._meta.payloadValidatorsBuilt).toBe(1);

    const second = await list([{ ...GOOD_ORDER, status: "NOPE" }]);
    expect(second.structuredContent.errors).toContainEqual(
      expect.objectContaining({ pointer: "/0/status", keyword: "enum" }),
    );
    expect(second._meta.payloadValidatorsBuilt).toBe(0);
    expect((await list([]))._meta.payloadValidatorsBuilt).toBe(0);

    // Another session of the same organization (same isolate here) reuses it as well: the cache is module level.
    const other = await connectPrincipal("ana");
    const third = await callTool(other, "validate_response_payload", {
      project: "orders",
      method: "GET",
      path: "/orders",
      status: 200,
      payload: [],
    });
    expect(third._meta.payloadValidatorsBuilt).toBe(0);

    // A new contract version with other content builds its own validator once.
    const v2 = ordersContract("Orders v2");
    await uploadContract(ci, "orders", v2);
    expect((await list([GOOD_ORDER]))._meta.payloadValidatorsBuilt).toBe(1);
    expect((await list([GOOD_ORDER]))._meta.payloadValidatorsBuilt).toBe(0);
    // ... while validating against version 1 explicitly still uses version 1's.
    const againstV1 = await callTool(agent, "validate_response_payload", {
      project: "orders",
      contractVersion: 1,
      method: "GET",
      path: "/orders",
      status: 200,
      payload: [],
    });
    expect(againstV1.structuredContent.contract.version).toBe(1);
    expect(againstV1._meta.payloadValidatorsBuilt).toBe(0);
  });
});
