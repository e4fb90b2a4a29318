import { describe, it } from "vitest";
import { expectConstitutionValid, expectConstitutionViolations, openapi, responses } from "../harness";

const options = { severity: "error", prefixes: ["/internal"] };

describe("forbidden-path-prefix", () => {
  it("accepts paths that only start with the same letters", () => {
    expectConstitutionValid(
      "forbidden-path-prefix",
      options,
      openapi({ "/internals-docs": { get: { responses: responses({ "200": null }) } } }),
    );
  });

  it("reports operations under the prefix, also when the base path puts them there", () => {
    expectConstitutionViolations(
      "forbidden-path-prefix",
      options,
      openapi({
        "/internal/jobs": { post: { responses: responses({ "202": null }) } },
        "/internal": { get: { responses: responses({ "200": null }) } },
      }),
      [
        { location: "GET /internal", message: "forbidden prefix /internal" },
        { location: "POST /internal/jobs", message: "forbidden prefix /internal" },
      ],
    );
    expectConstitutionViolations(
      "forbidden-path-prefix",
      options,
      openapi(
        { "/jobs": { get: { responses: responses({ "200": null }) } } },
        { servers: [{ url: "https://x.example/internal" }] },
      ),
      [{ location: "GET /jobs", message: "forbidden prefix /internal" }],
    );
  });
});
