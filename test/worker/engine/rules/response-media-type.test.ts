import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi } from "../harness";

const get = (responses: Record<string, unknown>) => openapi({ "/orders": { get: { responses } } });
const content = (...types: string[]) => Object.fromEntries(types.map((type) => [type, { schema: { type: "object" } }]));

describe("response-media-type", () => {
  it("compares families: problem+json is answered by json, and ASP.NET's extra text/plain and text/json do not matter", () => {
    expectValid(
      "response-media-type",
      get({
        "200": { description: "ok", content: content("application/json") },
        "404": { description: "nf", content: content("application/problem+json") },
      }),
      get({
        "200": { description: "ok", content: content("text/plain", "application/json", "text/json") },
        "404": { description: "nf", content: content("application/json") },
      }),
    );
  });

  it("reports a family the implementation does not produce", () => {
    expectViolations(
      "response-media-type",
      get({ "200": { description: "ok", content: content("application/json", "text/csv") } }),
      get({ "200": { description: "ok", content: content("application/json") } }),
      [
        {
          location: "GET /orders#/responses/200/content/text~1csv",
          message: "status 200: the contract returns text/csv",
        },
      ],
    );
    expectViolations(
      "response-media-type",
      get({ "200": { description: "ok", content: content("application/json") } }),
      get({ "200": { description: "ok", content: content("application/xml") } }),
      [{ location: "GET /orders#/responses/200/content/application~1json", message: "it declares application/xml" }],
    );
  });
});
