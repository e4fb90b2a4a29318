import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown, version = "3.0.3", mediaType = "application/json") =>
  openapi({ "/orders": { get: { responses: responses({ "404": schema }, mediaType) } } }, {}, version);
const problem = (schema: unknown, version = "3.0.3") => get(schema, version, "application/problem+json");
const contract = get({
  type: "object",
  required: ["status"],
  properties: { note: { type: "string" }, status: { type: "integer" } },
});

describe("response-optional-nullability", () => {
  it("accepts non-nullable optional properties, and leaves nullable required ones to response-nullability", () => {
    expectValid(
      "response-optional-nullability",
      contract,
      get({ type: "object", properties: { note: { type: "string" }, status: { type: ["integer", "null"] } } }, "3.1.0"),
    );
  });

  it("reports (as a warning) nullable members that neither side requires", () => {
    expectViolations(
      "response-optional-nullability",
      contract,
      get({ type: "object", properties: { note: { type: ["null", "string"] }, status: { type: "integer" } } }, "3.1.0"),
      [
        {
          location: "GET /orders#/responses/404/content/application~1json/schema/properties/note",
          message: "the property is optional on both sides",
        },
      ],
    );
  });

  it("does not report the standard problem+json members ASP.NET Core marks nullable, but does report other members of a problem body", () => {
    const problemContract = problem({
      type: "object",
      properties: {
        type: { type: "string" },
        title: { type: "string" },
        status: { type: "integer" },
        detail: { type: "string" },
        instance: { type: "string" },
        errors: { type: "object" },
      },
    });
    const nullableStandardMembers = {
      type: { type: ["string", "null"] },
      title: { type: ["string", "null"] },
      status: { type: ["integer", "null"] },
      detail: { type: ["string", "null"] },
      instance: { type: ["string", "null"] },
    };
    expectValid(
      "response-optional-nullability",
      problemContract,
      problem({ type: "object", properties: { ...nullableStandardMembers, errors: { type: "object" } } }, "3.1.0"),
    );
    expectViolations(
      "response-optional-nullability",
      problemContract,
      problem(
        { type: "object", properties: { ...nullableStandardMembers, errors: { type: ["object", "null"] } } },
        "3.1.0",
      ),
      [
        {
          location: "GET /orders#/responses/404/content/application~1problem+json/schema/properties/errors",
          message: "the property is optional on both sides",
        },
      ],
    );
  });
});
