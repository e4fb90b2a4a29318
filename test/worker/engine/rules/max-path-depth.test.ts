import { describe, it } from "vitest";
import { expectConstitutionValid, expectConstitutionViolations, openapi, responses } from "../harness";

describe("max-path-depth", () => {
  it("accepts paths up to the limit (the server base path not counted)", () => {
    expectConstitutionValid(
      "max-path-depth",
      { maxSegments: 3 },
      openapi(
        {
          "/a/{b}/c": {
            get: {
              parameters: [{ name: "b", in: "path", required: true, schema: { type: "string" } }],
              responses: responses({ "200": null }),
            },
          },
        },
        { servers: [{ url: "/api/v1" }] },
      ),
    );
  });

  it("reports deeper paths", () => {
    expectConstitutionViolations(
      "max-path-depth",
      { maxSegments: 3 },
      openapi({ "/a/b/c/d": { get: { responses: responses({ "200": null }) } } }),
      [{ location: "GET /a/b/c/d", message: "has 4 path segments; the constitution allows at most 3" }],
    );
  });
});
