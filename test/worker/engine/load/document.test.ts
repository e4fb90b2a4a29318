import { describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { checkOpenApiStructure } from "../../../../src/engine/load/document-checks";
import { parseOpenApiDocument } from "../../../../src/engine/load/document";
import { indexDocument } from "../../../../src/engine/normalize/normalize-document";
import { parseDocumentBytes } from "../../../../src/engine/load/parse-upload";

const minimal = {
  openapi: "3.0.3",
  info: { title: "Orders", version: "1.0.0" },
  paths: { "/orders": { get: { responses: { "200": { description: "ok" } } } } },
};

function problems(text: string) {
  const result = parseOpenApiDocument(text);
  if (result.ok) throw new Error("expected the document to be refused");
  return result.problems;
}

describe("parseOpenApiDocument", () => {
  it("reads JSON and YAML, OpenAPI 3.0, 3.1 and 3.2 (with the QUERY method), and counts operations", () => {
    const json = parseOpenApiDocument(JSON.stringify(minimal));
    expect(json).toMatchObject({ ok: true, format: "json", openapiVersion: "3.0.3", operationCount: 1 });
    const yaml = parseOpenApiDocument(
      `openapi: 3.1.0\ninfo:\n  title: Orders\n  version: "2"\npaths:\n  /orders/{id}:\n    get:\n      responses:\n        "200":\n          description: ok\n    delete:\n      responses:\n        204:\n          description: gone\n`,
    );
    expect(yaml).toMatchObject({ ok: true, format: "yaml", openapiVersion: "3.1.0", operationCount: 2 });
    const v32 = parseOpenApiDocument(
      JSON.stringify({
        ...minimal,
        openapi: "3.2.0",
        $self: "https://example.com/openapi",
        paths: { "/search": { query: { responses: { "200": {} } } } },
      }),
    );
    expect(v32).toMatchObject({ ok: true, openapiVersion: "3.2.0", operationCount: 1 });
    const componentsOnly = parseOpenApiDocument(
      JSON.stringify({ openapi: "3.1.0", info: { title: "x", version: "1" }, components: { schemas: {} } }),
    );
    expect(componentsOnly).toMatchObject({ ok: true, operationCount: 0 });
  });

  it("refuses what is not OpenAPI with each problem's path and message", () => {
    expect(problems("")).toEqual([{ path: "", message: expect.stringContaining("empty") }]);
    expect(problems('{ "openapi": ')[0]?.message).toMatch(/not valid JSON/);
    expect(problems("openapi: [unclosed")[0]?.message).toMatch(/not valid YAML/);
    expect(problems(JSON.stringify({ swagger: "2.0", info: { title: "x", version: "1" }, paths: {} }))).toContainEqual({
      path: "/swagger",
      message: expect.stringContaining("convert the document to OpenAPI 3"),
    });
    const list = problems(
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: 5 },
        paths: {
          orders: {},
          "/orders/{id}": {
            get: {
              parameters: [{ name: "id", in: "path", schema: { type: "string" } }, { in: "body" }],
              responses: { "200": {}, "99": { description: "x" } },
            },
            post: {},
          },
        },
      }),
    );
    expect(list).toEqual(
      expect.arrayContaining([
        { path: "/info/title", message: expect.stringContaining("info.title") },
        { path: "/info/version", message: expect.stringContaining("info.version") },
        { path: "/paths/orders", message: "path templates must start with /" },
        {
          path: "/paths/~1orders~1{id}/get/parameters/0/required",
          message: "path parameters must have `required: true`",
        },
        { path: "/paths/~1orders~1{id}/get/parameters/1/name", message: expect.stringContaining("`name` is required") },
        {
          path: "/paths/~1orders~1{id}/get/parameters/1/in",
          message: expect.stringContaining("query, header, path, cookie"),
        },
        {
          path: "/paths/~1orders~1{id}/get/responses/200/description",
          message: expect.stringContaining("description"),
        },
        { path: "/paths/~1orders~1{id}/get/responses/99", message: expect.stringContaining("not a status code") },
        { path: "/paths/~1orders~1{id}/post/responses", message: "`responses` is required in OpenAPI 3.0" },
      ]),
    );
  });

  it("refuses external $refs and unresolvable ones, naming where they are", () => {
    const list = problems(
      JSON.stringify({
        ...minimal,
        paths: {
          "/orders": {
            get: {
              responses: {
                "200": {
                  description: "ok",
                  content: { "application/json": { schema: { $ref: "https://evil.example/schema.json" } } },
                },
                "404": { $ref: "#/components/responses/Missing" },
              },
            },
          },
        },
      }),
    );
    expect(list).toEqual([
      {
        path: "/paths/~1orders/get/responses/200/content/application~1json/schema/$ref",
        message: expect.stringContaining('external $ref "https://evil.example/schema.json" is not allowed'),
      },
      { path: "/paths/~1orders/get/responses/404/$ref", message: expect.stringContaining("does not resolve") },
    ]);
    expect(
      problems(JSON.stringify({ ...minimal, components: { schemas: { A: { $ref: "other.yaml#/B" } } } }))[0]?.message,
    ).toMatch(/external \$ref/);
  });

  it("refuses pure $ref cycles without hanging, and accepts recursive schemas", () => {
    const cycle = problems(
      JSON.stringify({
        ...minimal,
        components: { schemas: { A: { $ref: "#/components/schemas/B" }, B: { $ref: "#/components/schemas/A" } } },
      }),
    );
    expect(cycle[0]).toEqual({ path: "/components/schemas/A/$ref", message: expect.stringContaining("$ref cycle") });
    const self = problems(
      JSON.stringify({ ...minimal, components: { schemas: { A: { $ref: "#/components/schemas/A" } } } }),
    );
    expect(self[0]?.message).toMatch(/\$ref cycle/);
    const recursive = parseOpenApiDocument(
      JSON.stringify({
        ...minimal,
        components: {
          schemas: {
            Node: {
              type: "object",
              properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
            },
          },
        },
      }),
    );
    expect(recursive.ok).toBe(true);
  });

  it("refuses YAML alias bombs and recursive aliases", () => {
    const bomb = [
      "openapi: 3.0.3",
      "info: {title: x, version: '1'}",
      "paths: {}",
      "x-bomb:",
      "  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
      ...["b", "c", "d", "e", "f", "g", "h", "i"].map(
        (name, index) => `  ${name}: &${name} [${Array(9).fill(`*${"abcdefghi"[index]}`).join(", ")}]`,
      ),
    ].join("\n");
    const refused = problems(bomb);
    expect(refused[0]?.message).toMatch(/too many aliases/);
    const recursive = problems(
      "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths: {}\nx-loop: &loop\n  again: *loop\n",
    );
    expect(recursive[0]?.message).toMatch(/recursive YAML alias|not valid YAML/);
  });

  it("hands every $ref it resolved while validating to the document's index, so a check does not resolve them again", () => {
    const document = {
      ...minimal,
      paths: {
        "/orders/{id}": {
          get: {
            parameters: [{ $ref: "#/components/parameters/Id" }],
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
              },
            },
          },
        },
      },
      components: {
        parameters: { Id: { name: "id", in: "path", required: true, schema: { type: "string" } } },
        schemas: { Order: { type: "object", properties: { id: { type: "string" } } } },
      },
    };
    const parsed = parseOpenApiDocument(JSON.stringify(document));
    if (!parsed.ok) throw new Error("expected the document to be accepted");
    expect(indexDocument(parsed.document).resolver.resolvedCount).toBe(2);
    // A document that did not come through validation starts its index with nothing resolved.
    expect(indexDocument(structuredClone(document)).resolver.resolvedCount).toBe(0);
  });

  it("still finds a value that contains itself when it may share nodes (YAML); JSON.parse output cannot", () => {
    const looped: Record<string, unknown> = { ...minimal };
    looped["x-loop"] = { again: looped };
    expect(checkOpenApiStructure(looped, true).problems[0]).toEqual({
      path: "/x-loop/again",
      message: expect.stringContaining("contains itself"),
    });
  });

  it("names the same places in JSON (walked without keeping a path) as in YAML (walked keeping one)", () => {
    const broken = {
      ...minimal,
      paths: {
        "/orders/{id}": {
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { $ref: "#/components/parameters/Gone" },
          ],
          get: {
            responses: {
              "200": {
                description: "ok",
                content: {
                  "application/json": {
                    schema: { allOf: [{ type: "object" }, { $ref: "other.json#/A" }] },
                    examples: { one: { value: { $ref: "not a reference: example data" } } },
                  },
                },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          A: { type: "object", properties: { $ref: { type: "string" }, b: { $ref: "#/components/schemas/Missing" } } },
        },
      },
    };
    const expected = [
      { path: "/paths/~1orders~1{id}/parameters/1/$ref", message: expect.stringContaining("does not resolve") },
      {
        path: "/paths/~1orders~1{id}/get/responses/200/content/application~1json/schema/allOf/1/$ref",
        message: expect.stringContaining("external $ref"),
      },
      { path: "/components/schemas/A/properties/b/$ref", message: expect.stringContaining("does not resolve") },
    ];
    expect(problems(JSON.stringify(broken))).toEqual(expected);
    expect(problems(toYaml(broken))).toEqual(expected);

    let deep: unknown = { type: "string" };
    for (let index = 0; index < 120; index++) deep = { type: "array", items: [deep] };
    const tooDeep = { ...minimal, components: { schemas: { Deep: deep } } };
    const firstTwenty = `/components/schemas/Deep${"/items/0".repeat(8)}/items`;
    expect(problems(JSON.stringify(tooDeep))).toEqual([
      { path: firstTwenty, message: expect.stringContaining("nests deeper than 200 levels") },
    ]);
    expect(problems(toYaml(tooDeep))).toEqual([
      { path: firstTwenty, message: expect.stringContaining("nests deeper than 200 levels") },
    ]);
  });

  it("refuses documents nested deeper than the limit instead of overflowing the stack", () => {
    let deep: unknown = { type: "string" };
    for (let index = 0; index < 5000; index++) deep = { type: "array", items: deep };
    const text = JSON.stringify({ ...minimal, components: { schemas: { Deep: deep } } });
    expect(problems(text)[0]?.message).toMatch(/nests deeper than 200 levels/);
  });
});

// An upload's JSON is parsed from its ASCII form (src/lib/utf8.ts): the same document, and the same refusal, with
// positions counted in the document's own text.
describe("parseDocumentBytes", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const accented = { ...minimal, info: { title: "Pedidos Ação ✓ 𝄞", version: "1.0.0", "x-ünïcode": { 日本: "é" } } };

  it("gives the document a parse of the decoded text gives", () => {
    const parsed = parseDocumentBytes(bytes(JSON.stringify(accented, null, 2)));
    expect(parsed).toMatchObject({ ok: true, facts: { format: "json", openapiVersion: "3.0.3", operationCount: 1 } });
    expect(parsed.ok && parsed.document.info).toEqual(accented.info);
  });

  it("refuses broken JSON with the line and column of the document's text, not of its ASCII form", () => {
    const text = '{\n  "openapi": "3.0.3", "info": {"title": "Ação ✓ 𝄞" "version": "1"}}';
    const fromBytes = parseDocumentBytes(bytes(text));
    const fromText = parseOpenApiDocument(text);
    expect(fromText.ok).toBe(false);
    expect(fromBytes).toEqual({ ok: false, problems: !fromText.ok && fromText.problems });
    expect(!fromBytes.ok && fromBytes.problems[0]?.message).toMatch(/line 2, column 53:/);
  });
});
