import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const RULE = "schema-additional-properties";
const RESPONSE = "GET /orders#/responses/200/content/application~1json/schema";
const BODY = "POST /orders#/requestBody/content/application~1json/schema";
const get = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } }, extra, version);
const post = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi(
    {
      "/orders": {
        post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "204": null }) },
      },
    },
    extra,
    version,
  );
const order = { id: { type: "string" }, total: { type: "number" } };
const closed = { type: "object", additionalProperties: false, properties: order };
const open = { type: "object", properties: order };
const typedMap = { type: "object", additionalProperties: { type: "integer" } };

describe("schema-additional-properties in responses", () => {
  it("accepts a closed contract object answered by the same closed object, in 3.0 or 3.1 style, inline or referenced", () => {
    expectValid(RULE, get(closed), get(closed));
    // 3.1 unevaluatedProperties: false says the same as additionalProperties: false here.
    expectValid(RULE, get(closed), get({ type: "object", unevaluatedProperties: false, properties: order }, "3.1.0"));
    expectValid(
      RULE,
      get(closed),
      get({ $ref: "#/components/schemas/Order" }, "3.0.3", { components: { schemas: { Order: closed } } }),
    );
    // A writeOnly property never appears in responses.
    expectValid(
      RULE,
      get(closed),
      get({ ...closed, properties: { ...order, password: { type: "string", writeOnly: true } } }),
    );
  });

  it("accepts narrowing: an open contract answered by a closed object, a typed map answered by a narrower or closed one", () => {
    expectValid(RULE, get(open), get(closed));
    expectValid(RULE, get(typedMap), get({ type: "object", additionalProperties: false }));
    expectValid(RULE, get({ type: "object", additionalProperties: true }), get(typedMap));
  });

  it("reports properties the implementation returns that a closed contract object forbids, and the object reopened", () => {
    expectViolations(RULE, get(closed), get({ ...closed, properties: { ...order, note: { type: "string" } } }), [
      {
        location: `${RESPONSE}/properties/note`,
        message:
          'the contract\'s object is closed (additionalProperties: false) but the implementation returns property "note"',
      },
    ]);
    expectViolations(
      RULE,
      get({ type: "object", unevaluatedProperties: false, properties: order }, "3.1.0"),
      get(open),
      [
        {
          location: RESPONSE,
          message: "the contract's object is closed (unevaluatedProperties: false) but the implementation's is open",
        },
      ],
    );
  });

  it("reports an additional-properties schema widened to true, removed, or replacing a closed object", () => {
    for (const widened of [
      { type: "object", additionalProperties: true },
      { type: "object" },
      { type: "object", additionalProperties: {} },
    ]) {
      expectViolations(RULE, get(typedMap), get(widened), [
        {
          location: `${RESPONSE}/additionalProperties`,
          message:
            "the contract limits additional property values to its additionalProperties schema but the implementation sets no such limit",
        },
      ]);
    }
    expectViolations(RULE, get({ type: "object", additionalProperties: false }), get(typedMap), [
      {
        location: `${RESPONSE}/additionalProperties`,
        message: "the implementation allows additional properties (an additionalProperties schema)",
      },
    ]);
  });

  it("accepts a contract property a closed contract declares through allOf, and reports one in a nested object", () => {
    const viaAllOf = get(
      {
        allOf: [
          { type: "object", properties: { id: { type: "string" } } },
          { type: "object", unevaluatedProperties: false, properties: { total: { type: "number" } } },
        ],
      },
      "3.1.0",
    );
    expectValid(RULE, viaAllOf, get({ type: "object", unevaluatedProperties: false, properties: order }, "3.1.0"));
    expectViolations(
      RULE,
      get({ type: "object", properties: { order: closed } }),
      get({
        type: "object",
        properties: { order: { ...closed, properties: { ...order, extra: { type: "boolean" } } } },
      }),
      [{ location: `${RESPONSE}/properties/order/properties/extra`, message: 'returns property "extra"' }],
    );
  });
});

describe("schema-additional-properties in requests", () => {
  it("accepts an implementation as open as the contract, or more open", () => {
    expectValid(RULE, post(open), post(open));
    expectValid(RULE, post(closed), post(open));
    expectValid(RULE, post(typedMap), post({ type: "object", additionalProperties: true }));
    expectValid(RULE, post({ type: "object", additionalProperties: false }), post(typedMap));
    expectValid(RULE, post(closed), post({ type: "object", unevaluatedProperties: false, properties: order }, "3.1.0"));
  });

  it("reports the implementation closing or limiting an object the contract leaves open", () => {
    expectViolations(RULE, post(open), post(closed), [
      {
        location: BODY,
        message: "the implementation's object is closed (additionalProperties: false) where the contract's is open",
      },
    ]);
    expectViolations(
      RULE,
      post(open, "3.1.0"),
      post({ type: "object", unevaluatedProperties: false, properties: order }, "3.1.0"),
      [{ location: BODY, message: "closed (unevaluatedProperties: false)" }],
    );
    expectViolations(RULE, post({ type: "object", additionalProperties: true }), post(typedMap), [
      {
        location: `${BODY}/additionalProperties`,
        message:
          "the implementation limits additional property values to an additionalProperties schema the contract does not set",
      },
    ]);
    expectViolations(RULE, post(typedMap), post({ type: "object", additionalProperties: false }), [
      { location: BODY, message: "closed (additionalProperties: false) where the contract's is open" },
    ]);
  });
});
