import { describe, it } from "vitest";
import { expectConstitutionValid, expectConstitutionViolations, openapi } from "../harness";

const options = { methods: ["POST", "DELETE"], mediaType: "application/problem+json" };
const problem = { description: "error", content: { "application/problem+json": { schema: { type: "object" } } } };

describe("write-operation-problem-json", () => {
  it("accepts write operations with a problem+json error response (also via a $ref'd response), and ignores reads", () => {
    expectConstitutionValid(
      "write-operation-problem-json",
      options,
      openapi(
        {
          "/orders": {
            post: { responses: { "201": { description: "ok" }, "4XX": problem } },
            get: { responses: { "200": { description: "ok" } } },
          },
          "/orders/{id}": {
            delete: {
              parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
              responses: { "204": { description: "ok" }, default: { $ref: "#/components/responses/Problem" } },
            },
          },
        },
        { components: { responses: { Problem: problem } } },
      ),
    );
  });

  it("reports write operations without one", () => {
    expectConstitutionViolations(
      "write-operation-problem-json",
      options,
      openapi({
        "/orders": {
          post: {
            responses: {
              "201": { description: "ok" },
              "400": { description: "bad", content: { "application/json": { schema: { type: "object" } } } },
            },
          },
        },
      }),
      [
        {
          location: "POST /orders#/responses",
          message: "declares no error response (4XX, 5XX or default) with application/problem+json",
        },
      ],
    );
  });
});
