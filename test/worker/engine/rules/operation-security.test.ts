import { describe, it } from "vitest";
import { expectConstitutionValid, expectConstitutionViolations, openapi, responses } from "../harness";

const options = { except: ["GET /health"] };
const schemes = { components: { securitySchemes: { Bearer: { type: "http", scheme: "bearer" } } } };

describe("operation-security", () => {
  it("accepts document-level security and excepted operations", () => {
    expectConstitutionValid(
      "operation-security",
      options,
      openapi(
        {
          "/orders": { get: { responses: responses({ "200": null }) } },
          "/health": { get: { security: [], responses: responses({ "200": null }) } },
        },
        { security: [{ Bearer: [] }], ...schemes },
      ),
    );
  });

  it("reports operations without security or with anonymous access", () => {
    expectConstitutionViolations(
      "operation-security",
      options,
      openapi(
        {
          "/orders": {
            get: { responses: responses({ "200": null }) },
            post: { security: [{}, { Bearer: [] }], responses: responses({ "201": null }) },
          },
        },
        schemes,
      ),
      [
        { location: "GET /orders#/security", message: "declares no security requirement" },
        { location: "POST /orders#/security", message: "allows anonymous access" },
      ],
    );
  });
});
