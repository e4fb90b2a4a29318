import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders": { get: { responses: responses({ "200": null, "404": null, "5XX": null, default: null }) } },
});

describe("missing-status-code", () => {
  it("accepts the same codes, a range covering a code, and a code inside a contract range; ignores default", () => {
    expectValid(
      "missing-status-code",
      contract,
      openapi({ "/orders": { get: { responses: responses({ "200": null, "4XX": null, "503": null }) } } }),
    );
  });

  it("reports each declared code or range the implementation lacks", () => {
    expectViolations(
      "missing-status-code",
      contract,
      openapi({ "/orders": { get: { responses: responses({ "200": null, default: null }) } } }),
      [
        { location: "GET /orders#/responses/404", message: "the contract declares status 404" },
        { location: "GET /orders#/responses/5XX", message: "the contract declares status 5XX" },
      ],
    );
  });
});
