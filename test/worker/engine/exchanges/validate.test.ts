/**
 * Recorded-traffic validation as a pure module (src/engine/exchanges): reading HAR 1.2 and NDJSON, and each
 * finding with its exact location (operation, exchange index, JSON pointer) and message.
 */
import { describe, expect, it } from "vitest";
import { MAX_EXCHANGES } from "../../../../src/engine/exchanges/exchange";
import { parseExchanges } from "../../../../src/engine/exchanges/parse";
import { trafficPointer } from "../../../../src/engine/exchanges/traffic-text";
import { createExchangeValidator } from "../../../../src/engine/exchanges/validate";
import type { Verdict } from "../../../../src/engine/types";
import { conformingHar, exchangeContract, GOOD_ORDER, har, NEW_ORDER } from "./fixtures";

function check(upload: unknown, contentType = "application/json"): Verdict {
  const text = typeof upload === "string" ? upload : JSON.stringify(upload);
  const parsed = parseExchanges(text, contentType);
  if (!parsed.ok) throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  return createExchangeValidator().validate(exchangeContract(), "test", parsed.exchanges);
}

const findings = (verdict: Verdict) => verdict.violations.map(({ rule, location }) => [rule, location]);

describe("recorded exchanges against a contract", () => {
  it("approves conforming traffic: base path, repeated query keys, ranges, problem+json, base64 bodies", () => {
    const verdict = check(conformingHar());
    expect(verdict.violations).toEqual([]);
    expect(verdict.approved).toBe(true);
  });

  it("rejects a response payload violation with the exchange index and the pointer", () => {
    const verdict = check(
      har([
        { method: "GET", url: "/orders/ord_1", status: 200, responseBody: GOOD_ORDER },
        { method: "GET", url: "/orders/ord_2", status: 200, responseBody: { ...GOOD_ORDER, total: -1 } },
      ]),
    );
    expect(verdict.approved).toBe(false);
    expect(verdict.violations).toEqual([
      {
        rule: "response-invalid",
        severity: "error",
        location: "GET /orders/{id}#exchange/1/response/body/total",
        message: expect.stringMatching(/^the response body \(200\): .*0/),
      },
    ]);
    expect(verdict.summary).toEqual([{ rule: "response-invalid", severity: "error", count: 1 }]);
  });

  it("rejects a request body violation, and a readOnly property sent in a request", () => {
    const verdict = check(
      har([
        {
          method: "POST",
          url: "/orders",
          status: 201,
          requestHeaders: { "Idempotency-Key": "key-12345678" },
          requestBody: { ...NEW_ORDER, status: "SHIPPED" },
          responseBody: GOOD_ORDER,
        },
        {
          method: "POST",
          url: "/orders",
          status: 201,
          requestHeaders: { "Idempotency-Key": "key-12345678" },
          requestBody: { ...NEW_ORDER, id: "ord_9" },
          responseBody: GOOD_ORDER,
        },
      ]),
    );
    expect(findings(verdict)).toEqual([
      ["request-invalid", "POST /orders#exchange/0/request/body/status"],
      ["request-invalid", "POST /orders#exchange/1/request/body/id"],
    ]);
    expect(verdict.violations[1]?.message).toBe(
      "the request body: property is readOnly: it must not appear in a request",
    );
  });

  it("rejects a writeOnly property in a response", () => {
    const verdict = check(
      har([{ method: "GET", url: "/orders/ord_1", status: 200, responseBody: { ...GOOD_ORDER, secret: "x" } }]),
    );
    expect(findings(verdict)).toEqual([["response-invalid", "GET /orders/{id}#exchange/0/response/body/secret"]]);
  });

  it("rejects missing required parameters and parameter values against their schemas", () => {
    const verdict = check(
      har([
        {
          method: "GET",
          url: "/orders?status=PAID",
          status: 200,
          responseHeaders: { "X-Total-Count": "0" },
          responseBody: [],
        },
        {
          method: "GET",
          url: "/orders?limit=500&status=LOST",
          status: 200,
          responseHeaders: { "X-Total-Count": "0" },
          responseBody: [],
        },
        { method: "POST", url: "/orders", status: 201, requestBody: NEW_ORDER, responseBody: GOOD_ORDER },
        { method: "GET", url: "/orders/42", status: 200, responseBody: GOOD_ORDER },
        {
          method: "POST",
          url: "/orders",
          status: 201,
          requestHeaders: { "Idempotency-Key": "key-12345678" },
          responseBody: GOOD_ORDER,
        },
      ]),
    );
    expect(findings(verdict)).toEqual([
      ["request-invalid", "GET /orders#exchange/0/request/query/limit"],
      ["request-invalid", "GET /orders#exchange/1/request/query/limit"],
      ["request-invalid", "GET /orders#exchange/1/request/query/status/0"],
      ["request-invalid", "POST /orders#exchange/2/request/header/Idempotency-Key"],
      ["request-invalid", "GET /orders/{id}#exchange/3/request/path/id"],
      ["request-invalid", "POST /orders#exchange/4/request/body"],
    ]);
    expect(verdict.violations[0]?.message).toBe('the required query parameter "limit" is missing');
    expect(verdict.violations[5]?.message).toMatch(/^the request body is required/);
  });

  it("reports an undocumented status, a missing required response header and undocumented content types", () => {
    const verdict = check(
      har([
        { method: "GET", url: "/orders/ord_1", status: 500, responseBody: { oops: true } },
        { method: "GET", url: "/orders?limit=1", status: 200, responseBody: [] },
        {
          method: "GET",
          url: "/orders?limit=1",
          status: 200,
          responseHeaders: { "X-Total-Count": "many" },
          responseBody: "<orders/>",
          responseMimeType: "application/xml",
        },
        { method: "GET", url: "/orders/ord_1", status: 404, responseBody: { title: "missing" } },
      ]),
    );
    expect(findings(verdict)).toEqual([
      ["undocumented-status-code", "GET /orders/{id}#exchange/0/response/status"],
      ["response-header-missing", "GET /orders#exchange/1/response/header/x-total-count"],
      ["response-invalid", "GET /orders#exchange/2/response/header/x-total-count"],
      ["undocumented-media-type", "GET /orders#exchange/2/response/header/content-type"],
      ["undocumented-media-type", "GET /orders/{id}#exchange/3/response/body"],
    ]);
    expect(verdict.violations[0]?.message).toBe(
      "status 500 is not declared for GET /orders/{id} (it declares 200, 404; nor 5XX or default)",
    );
  });

  it("reports request bodies of an undeclared content type, or where the contract declares none", () => {
    const upload = har([
      {
        method: "POST",
        url: "/orders",
        status: 201,
        requestHeaders: { "Idempotency-Key": "key-12345678" },
        requestBody: "x",
        responseBody: GOOD_ORDER,
      },
      { method: "GET", url: "/orders/ord_1", status: 200, requestBody: { q: 1 }, responseBody: GOOD_ORDER },
    ]) as { log: { entries: Array<Record<string, any>> } };
    upload.log.entries[0]!.request.postData = { mimeType: "text/csv", text: "total,status" };
    const verdict = check(upload);
    expect(findings(verdict)).toEqual([
      ["undocumented-media-type", "POST /orders#exchange/0/request/header/content-type"],
      ["undocumented-media-type", "GET /orders/{id}#exchange/1/request/body"],
    ]);
    expect(verdict.violations[0]?.message).toBe(
      "the request body is text/csv, which the contract does not declare for POST /orders (it declares application/json)",
    );
  });

  it("reads header names such as constructor and __proto__ as plain names", () => {
    const contract = exchangeContract() as { paths: Record<string, any> };
    contract.paths["/things/{id}"] = {
      get: {
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "integer" } },
          { name: "Constructor", in: "header", required: true, schema: { type: "string" } },
        ],
        // JSON.parse makes "__proto__" an own key, as a parsed contract has it.
        responses: {
          "200": {
            description: "ok",
            headers: JSON.parse('{"__proto__": {"required": true, "schema": {"type": "string"}}}'),
          },
        },
      },
    };
    const parsed = parseExchanges(
      JSON.stringify({ method: "GET", path: "/things/x", status: 200 }),
      "application/x-ndjson",
    );
    if (!parsed.ok) throw new Error("not parsed");
    const verdict = createExchangeValidator().validate(contract, "names", parsed.exchanges);
    expect(findings(verdict)).toEqual([
      ["request-invalid", "GET /things/{id}#exchange/0/request/path/id"],
      ["request-invalid", "GET /things/{id}#exchange/0/request/header/Constructor"],
      ["response-header-missing", "GET /things/{id}#exchange/0/response/header/__proto__"],
    ]);
  });

  it("warns instead of failing when the contract's schema cannot be used", () => {
    const contract = exchangeContract() as { paths: Record<string, any> };
    contract.paths["/orders/{id}"].get.parameters[0].schema = { type: "string", pattern: "([unclosed" };
    const parsed = parseExchanges(
      JSON.stringify(har([{ method: "GET", url: "/orders/ord_1", status: 200, responseBody: GOOD_ORDER }])),
      "application/json",
    );
    if (!parsed.ok) throw new Error("not parsed");
    const verdict = createExchangeValidator().validate(contract, "unusable", parsed.exchanges);
    expect(verdict.approved).toBe(true);
    expect(verdict.violations).toEqual([
      {
        rule: "schema-unusable",
        severity: "warning",
        location: "GET /orders/{id}#exchange/0/request/path/id",
        message: expect.stringContaining('the contract\'s schema for path parameter "id" cannot be used'),
      },
    ]);
  });

  it("reports exchanges whose path matches no operation as undocumented-operation with the path's shape", () => {
    const verdict = check(
      har([
        { method: "GET", url: "https://api.example.com/v1/invoices/7?x=1", status: 200, responseBody: {} },
        { method: "DELETE", url: "/orders/ord_1", status: 204 },
      ]),
    );
    // Only segments the contract's own paths use are kept: the recorded ones may be e-mail addresses or tokens.
    expect(findings(verdict)).toEqual([
      ["undocumented-operation", "GET /v1/{?}/{?}#exchange/0"],
      ["undocumented-operation", "DELETE /orders/{?}#exchange/1"],
    ]);
  });

  it("no finding quotes the traffic: content types, concrete paths, recorded keys and numbers stay out (issue 22)", () => {
    const secret = "alice@example.com";
    const token = "tok_9f8e7d6c5b4a";
    const verdict = check(
      har([
        { method: "GET", url: `/v1/users/${secret}/${token}`, status: 200, responseBody: {} },
        {
          method: "GET",
          url: "/orders/ord_1",
          status: 200,
          responseHeaders: { "content-type": `application/x-${token}; owner=${secret}` },
          responseBody: "x",
        },
        { method: "GET", url: "/orders/ord_1", status: 200, responseBody: { ...GOOD_ORDER, total: -987654321.25 } },
      ]),
    );
    expect(verdict.totalViolations).toBeGreaterThanOrEqual(3);
    const text = JSON.stringify(verdict);
    for (const value of [secret, token, "987654321"]) expect(text).not.toContain(value);
    expect(trafficPointer(`/lines/${secret}/0/note`)).toBe("/lines/*/0/note");
  });

  it("reads NDJSON: url or path, bodies as JSON values or text, headers as objects", () => {
    const lines = [
      { method: "get", path: "/orders/ord_1", status: 200, responseBody: GOOD_ORDER },
      {
        method: "POST",
        url: "https://api.example.com/v1/orders",
        status: 201,
        requestHeaders: { "idempotency-key": "key-12345678" },
        requestBody: NEW_ORDER,
        responseHeaders: { "Content-Type": "application/json" },
        responseBody: JSON.stringify({ ...GOOD_ORDER, total: "12" }),
      },
    ]
      .map((line) => JSON.stringify(line))
      .join("\n");
    expect(findings(check(`${lines}\n`, "application/x-ndjson"))).toEqual([
      ["response-invalid", "POST /orders#exchange/1/response/body/total"],
    ]);
    // Without a content type the content decides.
    expect(findings(check(lines, "application/octet-stream"))).toHaveLength(1);
  });

  it("lists at most the cap of violations and counts the rest", () => {
    const many = har(Array.from({ length: 1200 }, () => ({ method: "GET", url: "/nowhere", status: 200 })));
    const verdict = check(many);
    expect(verdict.violations).toHaveLength(1000);
    expect(verdict.totalViolations).toBe(1200);
    expect(verdict.summary).toEqual([{ rule: "undocumented-operation", severity: "error", count: 1200 }]);
  });

  it("lists the first violations in exchange order though operations are checked together", () => {
    // Alternating operations: checked grouped by operation, listed by exchange index, capped after pruning.
    const verdict = check(
      har(
        Array.from({ length: 2500 }, (_, i) =>
          i % 2 === 0
            ? { method: "GET", url: `/orders/ord_${i}`, status: 200, responseBody: { ...GOOD_ORDER, total: -1 } }
            : {
                method: "GET",
                url: `/orders?limit=${1000 + i}`,
                status: 200,
                responseHeaders: { "X-Total-Count": "1" },
                responseBody: [],
              },
        ),
      ),
    );
    expect(verdict.totalViolations).toBe(2500);
    expect(verdict.violations).toHaveLength(1000);
    expect(verdict.violations.map((v) => Number(/#exchange\/(\d+)\//.exec(v.location)?.[1]))).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
    expect(verdict.summary).toEqual([
      { rule: "request-invalid", severity: "error", count: 1250 },
      { rule: "response-invalid", severity: "error", count: 1250 },
    ]);
  });
});

describe("reading uploads", () => {
  it("says what is wrong with a malformed HAR, with a pointer", () => {
    const broken = har([{ method: "GET", url: "/orders/ord_1", status: 200 }]) as {
      log: { entries: Array<Record<string, any>> };
    };
    broken.log.entries[0]!.response.status = "ok";
    delete broken.log.entries[0]!.request.url;
    const parsed = parseExchanges(JSON.stringify(broken), "application/json");
    expect(parsed).toEqual({
      ok: false,
      code: "invalid_exchanges",
      problems: [
        {
          pointer: "/log/entries/0/request/url",
          message: "request.url must be an absolute http(s) URL or a path starting with /",
        },
        {
          pointer: "/log/entries/0/response/status",
          message: 'the status must be an HTTP status code from 100 to 599, got "ok"',
        },
      ],
    });
    expect(parseExchanges("{ not json", "application/json")).toMatchObject({
      ok: false,
      code: "invalid_exchanges",
      problems: [{ pointer: "", message: expect.stringContaining("not valid JSON") }],
    });
    expect(parseExchanges(JSON.stringify({ log: {} }), "application/json")).toMatchObject({
      ok: false,
      problems: [{ pointer: "/log/entries" }],
    });
    expect(parseExchanges('{"method":"GET","path":"/a","status":200}\nnope\n', "application/x-ndjson")).toMatchObject({
      ok: false,
      problems: [{ pointer: "/lines/2", message: "line 2 is not valid JSON" }],
    });
  });

  it("refuses more exchanges than the limit and bodies over the limit", () => {
    const lines = Array.from({ length: MAX_EXCHANGES + 1 }, () => '{"method":"GET","path":"/a","status":200}').join(
      "\n",
    );
    expect(parseExchanges(lines, "application/x-ndjson")).toEqual({
      ok: false,
      code: "too_many_exchanges",
      count: MAX_EXCHANGES + 1,
    });
    const big = JSON.stringify({ method: "GET", path: "/a", status: 200, responseBody: "x".repeat(1024 * 1024 + 1) });
    expect(parseExchanges(big, "application/x-ndjson")).toEqual({
      ok: false,
      code: "exchange_body_too_large",
      pointer: "/lines/1/responseBody",
      bytes: 1024 * 1024 + 1,
    });
  });
});
