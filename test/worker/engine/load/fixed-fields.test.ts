import { describe, expect, it } from "vitest";
import { parseOpenApiDocument } from "../../../../src/engine/load/document";
import { closestField } from "../../../../src/engine/load/fixed-fields";
import aspnetcore from "../fixtures/orders-aspnetcore.json";
import nestjs from "../fixtures/orders-nestjs.json";
import springdoc from "../fixtures/orders-springdoc.json";
import contractYaml from "../fixtures/orders-contract.yaml?raw";

const ok = { "200": { description: "ok" } };

function doc(
  version: string,
  extra: Record<string, unknown>,
  paths: Record<string, unknown> = { "/orders": { get: { responses: ok } } },
): string {
  return JSON.stringify({ openapi: version, info: { title: "Orders", version: "1" }, paths, ...extra });
}

function problems(text: string) {
  const result = parseOpenApiDocument(text);
  if (result.ok) throw new Error("expected the document to be refused");
  return result.problems;
}

describe("unknown fixed fields", () => {
  it("refuses `gett` in a path item, `parameter` in an operation and `path` at the top of a 3.1 document, with the closest name", () => {
    expect(problems(doc("3.0.3", {}, { "/orders": { gett: { responses: ok } } }))).toEqual([
      {
        path: "/paths/~1orders/gett",
        message: expect.stringContaining(
          "`gett` is not a field of the Path Item Object in OpenAPI 3.0: did you mean `get`?",
        ),
      },
    ]);
    const [parameter] = problems(
      doc("3.0.3", {}, { "/orders": { get: { parameter: [{ name: "q", in: "query" }], responses: ok } } }),
    );
    expect(parameter).toEqual({
      path: "/paths/~1orders/get/parameter",
      message: expect.stringContaining("did you mean `parameters`?"),
    });
    expect(parameter?.message).toContain(
      "Allowed: tags, summary, description, externalDocs, operationId, parameters, requestBody, responses, callbacks, deprecated, security, servers; extensions must start with `x-`.",
    );
    const top = problems(
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "Orders", version: "1" },
        path: { "/orders": { get: { responses: ok } } },
      }),
    );
    expect(top).toContainEqual({
      path: "/path",
      message: expect.stringContaining(
        "`path` is not a field of the OpenAPI Object in OpenAPI 3.1: did you mean `paths`?",
      ),
    });
  });

  it("checks every fixed-field object below the document: info, servers, operations, parameters, bodies, responses, headers, components, security schemes, flows, tags, examples, links, encodings", () => {
    const list = problems(
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "Orders", version: "1", licence: { name: "MIT" }, contact: { mail: "a@b.c" } },
        servers: [
          { url: "https://x", varibles: {} },
          { url: "https://y/{v}", variables: { v: { default: "1", enums: ["1"] } } },
        ],
        tags: [{ name: "orders", descripton: "x", externalDocs: { url: "https://x", link: "y" } }],
        paths: {
          "/orders": {
            parameters: [{ name: "q", in: "query", requird: true }],
            post: {
              requestBody: {
                content: {
                  "multipart/form-data": {
                    schema: { type: "object", unknownKeyword: 1 },
                    encoding: { file: { contentTyp: "image/png" } },
                    exampels: {},
                  },
                },
                require: true,
              },
              responses: {
                "201": {
                  description: "created",
                  header: {},
                  headers: { Location: { schema: { type: "string" }, requried: true } },
                  links: { self: { operationid: "getOrder" } },
                  content: { "application/json": { examples: { one: { value: {}, sumary: "x" } } } },
                },
              },
              callbacks: { done: { "{$request.body#/url}": { pots: {} } } },
            },
          },
        },
        components: {
          schema: {},
          securitySchemes: {
            oauth: { type: "oauth2", flow: {} },
            other: {
              type: "oauth2",
              flows: {
                authorizationCode: {
                  authorizationUrl: "https://a",
                  tokenUrl: "https://t",
                  scopes: {},
                  refreshURL: "x",
                },
                clientCredential: {},
              },
            },
          },
        },
      }),
    );
    expect(list.map((problem) => problem.path)).toEqual([
      "/info/licence",
      "/info/contact/mail",
      "/servers/0/varibles",
      "/servers/1/variables/v/enums",
      "/tags/0/descripton",
      "/tags/0/externalDocs/link",
      "/paths/~1orders/parameters/0/requird",
      "/paths/~1orders/post/requestBody/content/multipart~1form-data/encoding/file/contentTyp",
      "/paths/~1orders/post/requestBody/content/multipart~1form-data/exampels",
      "/paths/~1orders/post/requestBody/require",
      "/paths/~1orders/post/responses/201/header",
      "/paths/~1orders/post/responses/201/headers/Location/requried",
      "/paths/~1orders/post/responses/201/links/self/operationid",
      "/paths/~1orders/post/responses/201/content/application~1json/examples/one/sumary",
      "/paths/~1orders/post/callbacks/done/{$request.body#~1url}/pots",
      "/components/schema",
      "/components/securitySchemes/oauth/flow",
      "/components/securitySchemes/other/flows/authorizationCode/refreshURL",
      "/components/securitySchemes/other/flows/clientCredential",
    ]);
    const suggestion = (path: string) =>
      /did you mean `([^`]+)`/.exec(list.find((problem) => problem.path === path)?.message ?? "")?.[1];
    expect(suggestion("/info/licence")).toBe("license");
    expect(suggestion("/paths/~1orders/post/responses/201/header")).toBe("headers");
    expect(suggestion("/paths/~1orders/post/responses/201/links/self/operationid")).toBe("operationId");
    expect(suggestion("/components/securitySchemes/other/flows/clientCredential")).toBe("clientCredentials");
    expect(suggestion("/paths/~1orders/post/callbacks/done/{$request.body#~1url}/pots")).toBe("post");
  });

  it("knows what each version adds: 3.1's webhooks, jsonSchemaDialect, info.summary, license.identifier, components.pathItems", () => {
    const v31 = {
      jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
      webhooks: { created: { post: { responses: ok } } },
      components: { pathItems: {} },
    };
    const text31 = JSON.stringify({
      openapi: "3.1.0",
      info: { title: "Orders", summary: "s", version: "1", license: { name: "MIT", identifier: "MIT" } },
      paths: {},
      ...v31,
    });
    expect(parseOpenApiDocument(text31).ok).toBe(true);
    const list = problems(text31.replace('"3.1.0"', '"3.0.3"'));
    expect(list.map((problem) => problem.path)).toEqual([
      "/info/summary",
      "/info/license/identifier",
      "/jsonSchemaDialect",
      "/webhooks",
      "/components/pathItems",
    ]);
    // Webhook path items are checked like paths.
    expect(problems(doc("3.1.0", { webhooks: { created: { psot: { responses: ok } } } }))).toEqual([
      { path: "/webhooks/created/psot", message: expect.stringContaining("did you mean `post`?") },
    ]);
  });

  it("leaves extensions, schemas (JSON Schema keywords), references and 3.2 documents alone", () => {
    const text = doc(
      "3.1.0",
      {
        "x-top": 1,
        components: {
          "x-c": 1,
          schemas: {
            Order: {
              type: "object",
              unevaluatedProperties: false,
              discriminator: { propertyName: "kind", anything: 1 },
              xml: { name: "o", wrapped: true },
              $defs: {},
              madeUp: true,
            },
          },
          parameters: {
            Q: { $ref: "#/components/parameters/R", summary: "s", whatever: 1 },
            R: { name: "r", in: "query", "x-p": 1 },
          },
        },
      },
      {
        "/orders": {
          "x-item": 1,
          get: { "x-op": true, responses: { "x-r": 1, "200": { description: "ok", "x-resp": 1 } } },
        },
      },
    );
    expect(parseOpenApiDocument(text).ok).toBe(true);
    expect(
      parseOpenApiDocument(
        doc("3.2.0", { $self: "https://example.com/openapi" }, { "/orders": { get: { responses: ok } } }),
      ).ok,
    ).toBe(true);
  });

  it("accepts the framework fixtures and the contract fixture", () => {
    for (const fixture of [aspnetcore, nestjs, springdoc])
      expect(parseOpenApiDocument(JSON.stringify(fixture)).ok).toBe(true);
    expect(parseOpenApiDocument(contractYaml).ok).toBe(true);
  });

  it("suggests a name only when it is close", () => {
    expect(closestField("gett", ["get", "put"])).toBe("get");
    expect(closestField("Get", ["get", "put"])).toBe("get");
    expect(closestField("requestbody", ["requestBody", "responses"])).toBe("requestBody");
    expect(closestField("psot", ["get", "post"])).toBe("post");
    expect(closestField("zzz", ["get", "put"])).toBeUndefined();
    expect(closestField("summaryText", ["summary"])).toBeUndefined();
  });
});

describe("documents read back from storage", () => {
  it("keeps a document stored before the unknown-field check readable, while an upload of it is refused", () => {
    const stored = doc("3.1.0", {}, { "/orders": { get: { responses: ok }, gett: { responses: ok } } });
    expect(parseOpenApiDocument(stored).ok).toBe(false);
    const readBack = parseOpenApiDocument(stored, { unknownFields: "ignore" });
    expect(readBack.ok).toBe(true);
    if (readBack.ok) expect(readBack.operationCount).toBe(1);
  });
});
