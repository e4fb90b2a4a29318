import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const list = (parameters: unknown[], extra: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { parameters, responses: responses({ "200": null }) } } }, extra);
const contract = list([
  { name: "archived", in: "query", allowEmptyValue: true, schema: { type: "boolean" } },
  { name: "q", in: "query", schema: { type: "string" } },
]);

describe("parameter-allow-empty-value", () => {
  it("accepts an implementation that allows empty values where the contract does, or more", () => {
    expectValid(
      "parameter-allow-empty-value",
      contract,
      list(
        [
          { $ref: "#/components/parameters/Archived" },
          { name: "q", in: "query", allowEmptyValue: true, schema: { type: "string" } },
        ],
        {
          components: {
            parameters: {
              Archived: { name: "archived", in: "query", allowEmptyValue: true, schema: { type: "boolean" } },
            },
          },
        },
      ),
    );
  });

  it("reports allowEmptyValue removed", () => {
    expectViolations(
      "parameter-allow-empty-value",
      contract,
      list([
        { name: "archived", in: "query", schema: { type: "boolean" } },
        { name: "q", in: "query", schema: { type: "string" } },
      ]),
      [
        {
          location: "GET /orders#/parameters/query/archived/allowEmptyValue",
          message:
            'query parameter "archived": the contract allows an empty value (allowEmptyValue) but the implementation does not, so a client sending it empty is refused',
        },
      ],
    );
  });
});
