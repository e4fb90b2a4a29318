import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({ "/orders": { post: { responses: responses({ "201": null, "400": null }) } } });

describe("undocumented-status-code", () => {
  it("does not report framework error codes (the harness lists 422 and 500) nor codes inside a declared range", () => {
    expectValid(
      "undocumented-status-code",
      contract,
      openapi({
        "/orders": { post: { responses: responses({ "201": null, "400": null, "422": null, "500": null }) } },
      }),
    );
    expectValid(
      "undocumented-status-code",
      openapi({ "/orders": { post: { responses: responses({ "201": null, "4XX": null }) } } }),
      openapi({ "/orders": { post: { responses: responses({ "201": null, "409": null }) } } }),
    );
  });

  it("reports other codes the contract does not document", () => {
    expectViolations(
      "undocumented-status-code",
      contract,
      openapi({ "/orders": { post: { responses: responses({ "201": null, "202": null, "409": null }) } } }),
      [
        { location: "POST /orders#/responses/202", message: "declares status 202" },
        { location: "POST /orders#/responses/409", message: "declares status 409" },
      ],
    );
  });
});
