import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const post = (schema: unknown, version = "3.0.3") =>
  openapi(
    {
      "/orders": {
        post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "201": null }) },
      },
    },
    {},
    version,
  );
const contract = post({
  type: "object",
  properties: {
    quantity: { type: "integer" },
    channel: { type: "string", enum: ["web", "store"] },
    note: { type: "string", nullable: true },
  },
});

describe("request-body-schema", () => {
  it("accepts a 3.1 implementation that writes nullable as a type array and accepts more values", () => {
    expectValid(
      "request-body-schema",
      contract,
      post(
        {
          type: "object",
          properties: {
            quantity: { type: "number" },
            channel: { type: "string", enum: ["web", "store", "phone"] },
            note: { type: ["string", "null"] },
          },
        },
        "3.1.0",
      ),
    );
    expectValid(
      "request-body-schema",
      contract,
      post(
        {
          type: "object",
          properties: {
            quantity: { type: "integer" },
            channel: { type: "string" },
            note: { anyOf: [{ type: "string" }, { type: "null" }] },
          },
        },
        "3.1.0",
      ),
    );
  });

  it("reads a 3.0 nullable enum that lists no null as allowing null, as the generators that write it mean (README, Payload validation)", () => {
    const body = (schema: unknown, version = "3.0.3") =>
      post({ type: "object", properties: { color: schema } }, version);
    expectValid(
      "request-body-schema",
      body({ type: "string", nullable: true, enum: ["gray", "blue"] }),
      body({ type: ["string", "null"], enum: ["gray", "blue", null] }, "3.1.0"),
    );
    expectValid(
      "request-body-schema",
      body({ type: "string", nullable: true, enum: ["gray", "blue"] }),
      body({ type: "string", nullable: true, enum: ["gray", "blue", null] }),
    );
    for (const contract of [
      body({ type: "string", nullable: true, enum: ["gray", "blue"] }),
      body({ type: "string", nullable: true, enum: ["gray", "blue", null] }),
    ]) {
      expectViolations("request-body-schema", contract, body({ type: "string", enum: ["gray", "blue"] }, "3.1.0"), [
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/color",
          message: "the contract allows null here but the implementation does not accept it",
        },
      ]);
    }
  });

  it("reports type changes, refused enum values and refused null", () => {
    expectViolations(
      "request-body-schema",
      contract,
      post({
        type: "object",
        properties: {
          quantity: { type: "string" },
          channel: { type: "string", enum: ["web"] },
          note: { type: "string" },
        },
      }),
      [
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/channel",
          message: 'does not accept "store"',
        },
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/note",
          message: "the contract allows null here but the implementation does not accept it",
        },
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/quantity",
          message: "type is integer in the contract but string in the implementation",
        },
      ],
    );
  });
});
