import { describe, expect, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown) => openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } });
const contract = get({
  type: "object",
  required: ["id", "total"],
  properties: { id: { type: "string" }, total: { type: "number" } },
});

describe("response-property-optional", () => {
  it("accepts the same required list, and a generator that emits no `required` at all", () => {
    expectValid(
      "response-property-optional",
      contract,
      get({
        type: "object",
        required: ["total", "id"],
        properties: { id: { type: "string" }, total: { type: "number" } },
      }),
    );
    expectValid(
      "response-property-optional",
      contract,
      get({ type: "object", properties: { id: { type: "string" }, total: { type: "number" } } }),
    );
  });

  it("is satisfied by a writeOnly contract property the implementation leaves optional (responses never include it)", () => {
    expectValid(
      "response-property-optional",
      get({
        type: "object",
        required: ["id", "pin"],
        properties: { id: { type: "string" }, pin: { type: "string", writeOnly: true } },
      }),
      get({ type: "object", required: ["id"], properties: { id: { type: "string" }, pin: { type: "string" } } }),
    );
  });

  it("reports, as an error, a contract-required property the implementation declares optional", () => {
    const [violation] = expectViolations(
      "response-property-optional",
      contract,
      get({ type: "object", required: ["id"], properties: { id: { type: "string" }, total: { type: "number" } } }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/total",
          message: "may be omitted",
        },
      ],
    );
    expect(violation?.severity).toBe("error");
  });

  it("reads a schema without a list as requiring nothing when the implementation's document writes required lists elsewhere", () => {
    const order = { type: "object", properties: { id: { type: "string" }, total: { type: "number" } } };
    const customer = { type: "object", required: ["name"], properties: { name: { type: "string" } } };
    const withComponents = (orderSchema: unknown) =>
      openapi(
        { "/orders": { get: { responses: responses({ "200": { $ref: "#/components/schemas/Order" } }) } } },
        { components: { schemas: { Order: orderSchema, Customer: customer } } },
      );
    const contractDocument = withComponents({ ...order, required: ["id", "total"] });
    // The generator writes `required` (Customer has one), so Order's missing list says: nothing is required.
    expectViolations("response-property-optional", contractDocument, withComponents(order), [
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/id",
        message: "may be omitted",
      },
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/total",
        message: "may be omitted",
      },
    ]);
    // A document that writes no `required` anywhere says nothing about it: no finding.
    const silent = openapi(
      { "/orders": { get: { responses: responses({ "200": { $ref: "#/components/schemas/Order" } }) } } },
      { components: { schemas: { Order: order, Customer: { ...customer, required: undefined } } } },
    );
    expectValid("response-property-optional", contractDocument, silent);
  });
});
