import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const list = (parameters: unknown[], version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { parameters, responses: responses({ "200": null }) } } }, extra, version);

const contract = list([
  { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } },
  { name: "price", in: "query", schema: { type: "number", minimum: 0, exclusiveMinimum: true, multipleOf: 0.5 } },
  { name: "sku", in: "query", schema: { type: "string", minLength: 2, maxLength: 20 } },
  { name: "tags", in: "query", schema: { type: "array", items: { type: "string" }, maxItems: 10 } },
  { name: "X-Request-Id", in: "header", schema: { type: "string", pattern: "^[a-f0-9]{32}$" } },
]);

const PREFIX = "GET /orders#/parameters";

describe("parameter-constraint", () => {
  it("accepts an implementation that allows the same or more, also written as 3.1 numeric exclusive bounds through a $ref", () => {
    // Wider: lower minimum, higher maximum, a divisor multipleOf, dropped lengths, more items; the same pattern.
    expectValid(
      "parameter-constraint",
      contract,
      list(
        [
          { name: "limit", in: "query", schema: { type: "integer", minimum: 0 } },
          { name: "price", in: "query", schema: { $ref: "#/components/schemas/Price" } },
          { name: "sku", in: "query", schema: { type: "string" } },
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" }, maxItems: 50 } },
          { name: "x-request-id", in: "header", schema: { type: "string", pattern: "^[a-f0-9]{32}$" } },
        ],
        "3.1.0",
        { components: { schemas: { Price: { type: "number", exclusiveMinimum: 0, multipleOf: 0.25 } } } },
      ),
    );
  });

  it("treats an integer's exclusive bound and the next inclusive one as the same bound", () => {
    const exclusive = list([
      {
        name: "limit",
        in: "query",
        schema: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 101, exclusiveMaximum: true },
      },
    ]);
    const inclusive = list(
      [{ name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } }],
      "3.1.0",
    );
    expectValid("parameter-constraint", exclusive, inclusive);
    expectValid("parameter-constraint", inclusive, exclusive);
  });

  it("checks the values a contract enumerates against the implementation's constraints rather than its keywords", () => {
    const enumerated = list([{ name: "sku", in: "query", schema: { type: "string", enum: ["ab", "abc"] } }]);
    expectValid(
      "parameter-constraint",
      enumerated,
      list([{ name: "sku", in: "query", schema: { type: "string", maxLength: 3, pattern: "^a" } }]),
    );
    expectViolations(
      "parameter-constraint",
      enumerated,
      list([{ name: "sku", in: "query", schema: { type: "string", maxLength: 2 } }]),
      [
        {
          location: `${PREFIX}/query/sku/schema`,
          message: 'query parameter "sku": the implementation\'s maxLength 2 refuses "abc", which the contract allows',
        },
      ],
    );
  });

  it("does not read ASP.NET Core's numeric pattern on [integer, string] as a string constraint", () => {
    expectValid(
      "parameter-constraint",
      contract,
      list(
        [
          {
            name: "limit",
            in: "query",
            schema: { type: ["integer", "string"], pattern: "^-?(?:0|[1-9]\\d*)$", minimum: 1, maximum: 100 },
          },
          { name: "price", in: "query", schema: { type: "number", exclusiveMinimum: 0 } },
          { name: "sku", in: "query", schema: { type: "string" } },
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
          { name: "X-Request-Id", in: "header", schema: { type: "string", pattern: "^[a-f0-9]{32}$" } },
        ],
        "3.1.0",
      ),
    );
  });

  it("reports every constraint that refuses values the contract allows, header parameters included", () => {
    expectViolations(
      "parameter-constraint",
      contract,
      list([
        { name: "limit", in: "query", schema: { type: "integer", minimum: 5, maximum: 100, exclusiveMaximum: true } },
        { name: "price", in: "query", schema: { type: "number", minimum: 0, multipleOf: 0.3 } },
        { name: "sku", in: "query", schema: { type: "string", minLength: 3, maxLength: 10 } },
        {
          name: "tags",
          in: "query",
          schema: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 5, uniqueItems: true },
        },
        { name: "X-Request-Id", in: "header", schema: { type: "string", pattern: "^[a-f0-9]{16}$" } },
      ]),
      [
        {
          location: `${PREFIX}/header/X-Request-Id/schema`,
          message:
            'header parameter "X-Request-Id": pattern is "^[a-f0-9]{32}$" in the contract but "^[a-f0-9]{16}$" in the implementation, so it may refuse values the contract allows',
        },
        {
          location: `${PREFIX}/query/limit/schema`,
          message:
            'query parameter "limit": the lower bound is >= 1 in the contract but >= 5 in the implementation, so it refuses values the contract allows',
        },
        {
          location: `${PREFIX}/query/limit/schema`,
          message: 'query parameter "limit": the upper bound is <= 100 in the contract but < 100 in the implementation',
        },
        {
          location: `${PREFIX}/query/price/schema`,
          message: 'query parameter "price": multipleOf is 0.5 in the contract but 0.3 in the implementation',
        },
        {
          location: `${PREFIX}/query/sku/schema`,
          message: 'query parameter "sku": minLength is 2 in the contract but 3 in the implementation',
        },
        {
          location: `${PREFIX}/query/sku/schema`,
          message: 'query parameter "sku": maxLength is 20 in the contract but 10 in the implementation',
        },
        {
          location: `${PREFIX}/query/tags/schema`,
          message: 'query parameter "tags": the implementation sets minItems 1, which the contract does not',
        },
        {
          location: `${PREFIX}/query/tags/schema`,
          message: 'query parameter "tags": maxItems is 10 in the contract but 5 in the implementation',
        },
        {
          location: `${PREFIX}/query/tags/schema`,
          message: 'query parameter "tags": the implementation requires unique items (uniqueItems)',
        },
      ],
    );
  });

  it("reports a pattern or multipleOf the contract does not set at all", () => {
    expectViolations(
      "parameter-constraint",
      list([
        { name: "code", in: "query", schema: { type: "string" } },
        { name: "n", in: "query", schema: { type: "integer" } },
      ]),
      list([
        { name: "code", in: "query", schema: { type: "string", pattern: "^[A-Z]+$" } },
        { name: "n", in: "query", schema: { type: "integer", multipleOf: 1 } },
      ]),
      [
        {
          location: `${PREFIX}/query/code/schema`,
          message:
            'the implementation sets pattern "^[A-Z]+$", which the contract does not, so it may refuse values the contract allows',
        },
      ],
    );
  });
});
