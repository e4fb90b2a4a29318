import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const list = (parameters: unknown[], version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { parameters, responses: responses({ "200": null }) } } }, extra, version);
const contract = list([
  { name: "limit", in: "query", schema: { type: "integer", default: 20 } },
  { name: "sort", in: "query", schema: { type: "array", items: { type: "string" }, default: ["created"] } },
  { name: "X-Locale", in: "header", schema: { type: "string", default: "en" } },
]);

describe("parameter-default", () => {
  it("accepts the same defaults (through a $ref, a 3.1 sibling of $ref, other header case), and a default only one side declares", () => {
    expectValid(
      "parameter-default",
      contract,
      list(
        [
          { name: "limit", in: "query", schema: { $ref: "#/components/schemas/Limit" } },
          { name: "sort", in: "query", schema: { type: "array", items: { type: "string" }, default: ["created"] } },
          { name: "x-locale", in: "header", schema: { $ref: "#/components/schemas/Locale", default: "en" } },
        ],
        "3.1.0",
        { components: { schemas: { Limit: { type: "integer", default: 20 }, Locale: { type: "string" } } } },
      ),
    );
    expectValid(
      "parameter-default",
      contract,
      list([
        { name: "limit", in: "query", schema: { type: "integer" } },
        { name: "sort", in: "query", schema: { type: "array", items: { type: "string" } } },
        { name: "X-Locale", in: "header", schema: { type: "string" } },
      ]),
    );
    expectValid(
      "parameter-default",
      list([{ name: "limit", in: "query", schema: { type: "integer" } }]),
      list([{ name: "limit", in: "query", schema: { type: "integer", default: 50 } }]),
    );
  });

  it("reports a changed default, in an operation otherwise identical to the contract's", () => {
    expectViolations(
      "parameter-default",
      contract,
      list([
        { name: "limit", in: "query", schema: { type: "integer", default: 50 } },
        { name: "sort", in: "query", schema: { type: "array", items: { type: "string" }, default: ["created", "id"] } },
        { name: "X-Locale", in: "header", schema: { type: "string", default: "pt-BR" } },
      ]),
      [
        {
          location: "GET /orders#/parameters/header/X-Locale/schema/default",
          message:
            'header parameter "X-Locale": the default is "en" in the contract but "pt-BR" in the implementation, so a client that omits it gets other behaviour',
        },
        {
          location: "GET /orders#/parameters/query/limit/schema/default",
          message: 'query parameter "limit": the default is 20 in the contract but 50 in the implementation',
        },
        {
          location: "GET /orders#/parameters/query/sort/schema/default",
          message: 'the default is ["created"] in the contract but ["created","id"]',
        },
      ],
    );
  });

  it("in 3.0 ignores a default beside $ref, as every $ref sibling", () => {
    expectValid(
      "parameter-default",
      contract,
      list([{ name: "limit", in: "query", schema: { $ref: "#/components/schemas/Limit", default: 50 } }], "3.0.3", {
        components: { schemas: { Limit: { type: "integer", default: 20 } } },
      }),
    );
  });
});
