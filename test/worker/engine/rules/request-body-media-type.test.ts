import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const body = (content: Record<string, unknown>) => ({
  "/orders": { post: { requestBody: { content }, responses: responses({ "201": null }) } },
});
const schema = { type: "object" };

describe("request-body-media-type", () => {
  it("accepts the same family (application/json vs application/json; charset=utf-8, +json) and extra media types", () => {
    expectValid(
      "request-body-media-type",
      openapi(body({ "application/json": { schema } })),
      openapi(body({ "application/json; charset=utf-8": { schema }, "text/plain": { schema: { type: "string" } } })),
    );
    expectValid(
      "request-body-media-type",
      openapi(body({ "application/merge-patch+json": { schema } })),
      openapi(body({ "application/json": { schema } })),
    );
  });

  it("reports a media type family the implementation does not accept, and a body it does not read", () => {
    expectViolations(
      "request-body-media-type",
      openapi(body({ "application/json": { schema }, "application/x-www-form-urlencoded": { schema } })),
      openapi(body({ "application/json": { schema } })),
      [
        {
          location: "POST /orders#/requestBody/content/application~1x-www-form-urlencoded",
          message: "does not accept that media type",
        },
      ],
    );
    expectViolations(
      "request-body-media-type",
      openapi(body({ "application/json": { schema } })),
      openapi({ "/orders": { post: { responses: responses({ "201": null }) } } }),
      [{ location: "POST /orders#/requestBody/content/application~1json", message: "it declares no request body" }],
    );
  });
});
