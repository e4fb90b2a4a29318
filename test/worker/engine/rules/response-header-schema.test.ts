import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi } from "../harness";

const ok = (headers: Record<string, unknown>, version = "3.0.3") =>
  openapi({ "/orders": { get: { responses: { "200": { description: "ok", headers } } } } }, {}, version);
const limit = (schema: unknown) => ({ "X-Rate-Limit": { required: true, schema } });

describe("response-header-schema", () => {
  it("accepts the same schema written another way (3.0 vs 3.1, content instead of schema) and a narrower one", () => {
    expectValid(
      "response-header-schema",
      ok(limit({ type: "integer", nullable: true })),
      ok(limit({ type: ["integer", "null"] }), "3.1.0"),
    );
    expectValid("response-header-schema", ok(limit({ type: "number" })), ok(limit({ type: "integer" })));
    expectValid(
      "response-header-schema",
      ok({ "X-Mode": { schema: { type: "string", enum: ["a", "b"] } } }),
      ok({ "X-Mode": { schema: { type: "string", enum: ["a"] } } }),
    );
    expectValid(
      "response-header-schema",
      ok({ "X-Mode": { content: { "text/plain": { schema: { type: "string" } } } } }),
      ok({ "x-mode": { content: { "text/plain": { schema: { type: "string" } } } } }),
    );
  });

  it("reports a changed type, a value outside the contract's enum, and null the contract does not allow", () => {
    expectViolations("response-header-schema", ok(limit({ type: "integer" })), ok(limit({ type: "string" })), [
      {
        location: "GET /orders#/responses/200/headers/X-Rate-Limit/schema",
        message:
          'status 200: response header "X-Rate-Limit": type is integer in the contract but string in the implementation',
      },
    ]);
    expectViolations(
      "response-header-schema",
      ok({ "X-Mode": { schema: { type: "string", enum: ["a"] } } }),
      ok({ "X-Mode": { schema: { type: "string", enum: ["a", "b"] } } }),
      [
        {
          location: "GET /orders#/responses/200/headers/X-Mode/schema",
          message: 'the implementation may return "b", outside the contract\'s values ["a"]',
        },
      ],
    );
    expectViolations(
      "response-header-schema",
      ok(limit({ type: "integer" })),
      ok(limit({ type: "integer", nullable: true })),
      [
        {
          location: "GET /orders#/responses/200/headers/X-Rate-Limit/schema",
          message: "the implementation may return null where the contract does not allow null",
        },
      ],
    );
    expectViolations(
      "response-header-schema",
      ok({ "X-Mode": { content: { "text/plain": { schema: { type: "string" } } } } }),
      ok({ "X-Mode": { content: { "text/plain": { schema: { type: "boolean" } } } } }),
      [
        {
          location: "GET /orders#/responses/200/headers/X-Mode/content/text~1plain/schema",
          message: "type is string in the contract but boolean",
        },
      ],
    );
  });
});
