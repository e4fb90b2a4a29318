import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const post = (schema: unknown, extra: Record<string, unknown> = {}) =>
  openapi(
    {
      "/orders": {
        post: {
          requestBody: { required: true, content: { "application/json": { schema } } },
          responses: responses({ "201": null }),
        },
      },
    },
    extra,
  );
const contract = post({
  type: "object",
  required: ["sku"],
  properties: {
    sku: { type: "string" },
    note: { type: "string" },
    address: { type: "object", properties: { zip: { type: "string" } } },
  },
});

describe("request-body-required-property", () => {
  it("accepts the same required properties through a $ref, and fewer required ones", () => {
    expectValid(
      "request-body-required-property",
      contract,
      post(
        { $ref: "#/components/schemas/NewOrder" },
        {
          components: {
            schemas: {
              NewOrder: {
                type: "object",
                required: ["sku"],
                properties: {
                  sku: { type: "string" },
                  note: { type: "string" },
                  address: { type: "object", properties: { zip: { type: "string" } } },
                },
              },
            },
          },
        },
      ),
    );
    expectValid(
      "request-body-required-property",
      contract,
      post({
        type: "object",
        properties: {
          sku: { type: "string" },
          note: { type: "string" },
          address: { type: "object", properties: { zip: { type: "string" } } },
        },
      }),
    );
  });

  it("does not require readOnly properties of a request body: they exist only in responses", () => {
    // One schema for requests and responses, as hand-written contracts do: id and created are server-set.
    const thing = {
      type: "object",
      required: ["id", "created", "name"],
      properties: {
        id: { type: "string", readOnly: true },
        created: { type: "string", format: "date-time", readOnly: true },
        name: { type: "string" },
      },
    };
    const write = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
      openapi(
        {
          "/things": {
            post: {
              requestBody: { required: true, content: { "application/json": { schema } } },
              responses: responses({ "201": schema }),
            },
          },
        },
        extra,
        version,
      );
    expectValid("request-body-required-property", write({ ...thing, required: ["name"] }), write(thing));
    expectValid(
      "request-body-required-property",
      write(thing),
      write({ ...thing, properties: { ...thing.properties, note: { type: "string" } } }, "3.1.0"),
    );
    // 3.1: readOnly beside a $ref counts too.
    expectValid(
      "request-body-required-property",
      write({ ...thing, required: ["name"] }),
      write(
        { ...thing, properties: { ...thing.properties, id: { $ref: "#/components/schemas/Id", readOnly: true } } },
        "3.1.0",
        { components: { schemas: { Id: { type: "string" } } } },
      ),
    );
  });

  it("reports a property the implementation requires that the contract marks readOnly (clients do not send it)", () => {
    const write = (schema: unknown) => post(schema);
    expectViolations(
      "request-body-required-property",
      write({
        type: "object",
        required: ["sku"],
        properties: { sku: { type: "string" }, id: { type: "string", readOnly: true } },
      }),
      write({
        type: "object",
        required: ["sku", "id"],
        properties: { sku: { type: "string" }, id: { type: "string" } },
      }),
      [
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/id",
          message:
            'the implementation requires property "id", which the contract marks readOnly, so clients do not send it',
        },
      ],
    );
  });

  it("reports properties the implementation requires and the contract does not, at any depth", () => {
    expectViolations(
      "request-body-required-property",
      contract,
      post({
        type: "object",
        required: ["sku", "note", "coupon"],
        properties: {
          sku: { type: "string" },
          note: { type: "string" },
          coupon: { type: "string" },
          address: { type: "object", required: ["zip"], properties: { zip: { type: "string" } } },
        },
      }),
      [
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/address/properties/zip",
          message: 'requires property "zip", which the contract makes optional',
        },
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/coupon",
          message: 'requires property "coupon", which the contract does not define',
        },
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/note",
          message: 'requires property "note", which the contract makes optional',
        },
      ],
    );
  });
});
