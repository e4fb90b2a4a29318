import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const list = (parameters: unknown[], path = "/orders") =>
  openapi({ [path]: { get: { parameters, responses: responses({ "200": null }) } } });
const ids = { type: "array", items: { type: "integer" } };
const contract = list([
  { name: "ids", in: "query", schema: ids },
  {
    name: "filter",
    in: "query",
    style: "deepObject",
    explode: true,
    schema: { type: "object", properties: { status: { type: "string" } } },
  },
  { name: "X-Tags", in: "header", schema: ids },
  { name: "status", in: "query", schema: { type: "string" } },
]);

describe("parameter-style", () => {
  it("accepts the defaults written out (form + explode for query, simple for headers), and styles that write a single value alike", () => {
    expectValid(
      "parameter-style",
      contract,
      list([
        { name: "ids", in: "query", style: "form", explode: true, schema: ids },
        {
          name: "filter",
          in: "query",
          style: "deepObject",
          explode: true,
          schema: { type: "object", properties: { status: { type: "string" } } },
        },
        { name: "x-tags", in: "header", style: "simple", explode: false, schema: ids },
        // A single string: explode and pipeDelimited write "status=open" all the same.
        { name: "status", in: "query", style: "pipeDelimited", explode: false, schema: { type: "string" } },
      ]),
    );
  });

  it("ignores parameters described by content (serialised by their media type)", () => {
    const withContent = list([
      { name: "filter", in: "query", content: { "application/json": { schema: { type: "object" } } } },
    ]);
    expectValid(
      "parameter-style",
      withContent,
      list([{ name: "filter", in: "query", content: { "application/json": { schema: { type: "object" } } } }]),
    );
  });

  it("reports a changed explode or style, for arrays, objects and path labels", () => {
    expectViolations(
      "parameter-style",
      contract,
      list([
        { name: "ids", in: "query", explode: false, schema: ids },
        {
          name: "filter",
          in: "query",
          style: "form",
          schema: { type: "object", properties: { status: { type: "string" } } },
        },
        { name: "X-Tags", in: "header", explode: true, schema: ids },
        { name: "status", in: "query", schema: { type: "string" } },
      ]),
      [
        {
          location: "GET /orders#/parameters/header/X-Tags/explode",
          message:
            'header parameter "X-Tags": style simple, explode false in the contract but style simple, explode true in the implementation',
        },
        {
          location: "GET /orders#/parameters/query/filter/style",
          message:
            'query parameter "filter": style deepObject, explode true in the contract but style form, explode true in the implementation',
        },
        {
          location: "GET /orders#/parameters/query/ids/explode",
          message:
            'query parameter "ids": style form, explode true in the contract but style form, explode false in the implementation, so clients write it differently than the implementation reads it',
        },
      ],
    );
    expectViolations(
      "parameter-style",
      list([{ name: "id", in: "path", required: true, schema: { type: "integer" } }], "/orders/{id}"),
      list([{ name: "id", in: "path", required: true, style: "label", schema: { type: "integer" } }], "/orders/{id}"),
      [
        {
          location: "GET /orders/{id}#/parameters/path/id/style",
          message: "style simple, explode false in the contract but style label, explode false",
        },
      ],
    );
  });
});
