import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown, version = "3.0.3") => openapi({ "/orders": { get: { responses: responses({ "404": schema }, "application/problem+json") } } }, {}, version);
const contract = get({ type: "object", required: ["status"], properties: { title: { type: "string" }, status: { type: "integer" } } });

describe("response-optional-nullability", () => {
  it("accepts non-nullable optional properties, and leaves nullable required ones to response-nullability", () => {
    expectValid("response-optional-nullability", contract, get({ type: "object", properties: { title: { type: "string" }, status: { type: ["integer", "null"] } } }, "3.1.0"));
  });

  it("reports (as a warning) ASP.NET-style nullable members that neither side requires", () => {
    expectViolations("response-optional-nullability", contract, get({ type: "object", properties: { title: { type: ["null", "string"] }, status: { type: "integer" } } }, "3.1.0"), [
      { location: "GET /orders#/responses/404/content/application~1problem+json/schema/properties/title", message: "the property is optional on both sides" },
    ]);
  });
});
