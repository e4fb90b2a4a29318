import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const cat = {
  type: "object",
  required: ["kind", "meow"],
  properties: { kind: { type: "string" }, meow: { type: "string" } },
};
const dog = {
  type: "object",
  required: ["kind", "bark"],
  properties: { kind: { type: "string" }, bark: { type: "boolean" } },
};
const bird = {
  type: "object",
  required: ["kind", "wings"],
  properties: { kind: { type: "string" }, wings: { type: "integer" } },
};
const components = (schemas: Record<string, unknown>) => ({ components: { schemas } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const BODY = "#/requestBody/content/application~1json/schema";
const RESPONSE = "#/responses/200/content/application~1json/schema";

/** A request body and a 200 response with the same schema. */
const both = (schema: unknown, schemas: Record<string, unknown>) =>
  openapi(
    {
      "/pets": {
        post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "200": schema }) },
      },
    },
    components(schemas),
  );

describe("schema-alternatives", () => {
  it("accepts the same alternatives under other component names and in another order", () => {
    const contract = both({ oneOf: [ref("Cat"), ref("Dog")] }, { Cat: cat, Dog: dog });
    expectValid(
      "schema-alternatives",
      contract,
      both({ oneOf: [ref("DogDto"), ref("CatDto")] }, { CatDto: cat, DogDto: dog }),
    );
    expectValid("schema-alternatives", contract, both({ oneOf: [dog, cat] }, {}));
  });

  it("accepts an alternative the other side's alternatives cover: a request alternative added, a response alternative removed, a wider request alternative", () => {
    const request = (schema: unknown, schemas: Record<string, unknown> = {}) =>
      openapi(
        {
          "/pets": {
            post: {
              requestBody: { content: { "application/json": { schema } } },
              responses: responses({ "204": null }),
            },
          },
        },
        components(schemas),
      );
    const response = (schema: unknown, schemas: Record<string, unknown> = {}) =>
      openapi({ "/pets": { get: { responses: responses({ "200": schema }) } } }, components(schemas));
    expectValid("schema-alternatives", request({ oneOf: [cat, dog] }), request({ oneOf: [cat, dog, bird] }));
    expectValid("schema-alternatives", response({ oneOf: [cat, dog, bird] }), response({ oneOf: [cat, dog] }));
    // The implementation accepts a cat without "meow": every contract cat is still accepted.
    expectValid(
      "schema-alternatives",
      request({ oneOf: [cat, dog] }),
      request({ oneOf: [{ ...cat, required: ["kind"] }, dog] }),
    );
    // One implementation schema that accepts both of the contract's alternatives.
    expectValid(
      "schema-alternatives",
      request({ anyOf: [{ type: "string" }, { type: "object", properties: { a: { type: "string" } } }] }),
      request({ anyOf: [{ type: "string" }, { type: "object" }] }),
    );
  });

  it("reports a request alternative removed, at the contract's alternative, with the closest miss", () => {
    const request = (schema: unknown) =>
      openapi(
        {
          "/pets": {
            post: {
              requestBody: { content: { "application/json": { schema } } },
              responses: responses({ "204": null }),
            },
          },
        },
        components({ Cat: cat, Dog: dog, Bird: bird }),
      );
    expectViolations(
      "schema-alternatives",
      request({ oneOf: [ref("Cat"), ref("Dog"), ref("Bird")] }),
      request({ oneOf: [ref("Cat"), ref("Bird")] }),
      [
        {
          location: `POST /pets${BODY}/oneOf/1`,
          message:
            "the contract's oneOf alternative 1 (Dog) is accepted by none of the implementation's alternatives (oneOf alternative 0 (Cat), oneOf alternative 1 (Bird)), so clients sending it are refused (closest:",
        },
      ],
    );
  });

  it("reports a response alternative added", () => {
    const response = (schema: unknown) =>
      openapi(
        { "/pets": { get: { responses: responses({ "200": schema }) } } },
        components({ Cat: cat, Dog: dog, Bird: bird }),
      );
    expectViolations(
      "schema-alternatives",
      response({ oneOf: [ref("Cat"), ref("Dog")] }),
      response({ oneOf: [ref("Cat"), ref("Dog"), ref("Bird")] }),
      [
        {
          location: `GET /pets${RESPONSE}/oneOf`,
          message:
            "status 200: the implementation's oneOf alternative 2 (Bird) fits none of the contract's alternatives, so it may return values the contract does not allow",
        },
      ],
    );
    // A plain schema where the contract has alternatives is one alternative.
    expectViolations("schema-alternatives", response({ oneOf: [ref("Cat"), ref("Dog")] }), response(ref("Bird")), [
      {
        location: `GET /pets${RESPONSE}/oneOf`,
        message: "the implementation's schema fits none of the contract's alternatives",
      },
    ]);
  });

  it("reports a changed discriminator propertyName, and mapping values removed (request) or added (response)", () => {
    const schemas = { Cat: cat, Dog: dog, Bird: bird };
    const polymorphic = (propertyName: string, mapping: Record<string, string>) =>
      both(
        { oneOf: Object.values(mapping).map((target) => ({ $ref: target })), discriminator: { propertyName, mapping } },
        schemas,
      );
    const catDog = { cat: "#/components/schemas/Cat", dog: "#/components/schemas/Dog" };
    expectValid("schema-alternatives", polymorphic("kind", catDog), polymorphic("kind", { ...catDog }));
    expectViolations("schema-alternatives", polymorphic("kind", catDog), polymorphic("type", catDog), [
      {
        location: `POST /pets${BODY}/discriminator/propertyName`,
        message: 'the discriminator is property "kind" in the contract but "type" in the implementation',
      },
      {
        location: `POST /pets${RESPONSE}/discriminator/propertyName`,
        message: "status 200: the discriminator is property",
      },
    ]);
    expectViolations(
      "schema-alternatives",
      polymorphic("kind", catDog),
      polymorphic("kind", { cat: catDog.cat, hound: catDog.dog }),
      [
        {
          location: `POST /pets${BODY}/discriminator/mapping/dog`,
          message:
            'the contract maps discriminator value "dog" but the implementation does not (it maps "cat", "hound"), so a client sending it is refused',
        },
        {
          location: `POST /pets${RESPONSE}/discriminator/mapping`,
          message:
            'status 200: the implementation may return discriminator value "hound", which the contract does not map (it maps "cat", "dog")',
        },
      ],
    );
  });

  it("reports alternatives in parameters and response headers too", () => {
    const withParameter = (schema: unknown) =>
      openapi({
        "/pets": { get: { parameters: [{ name: "id", in: "query", schema }], responses: responses({ "204": null }) } },
      });
    // (Alternatives that only name a type are a type union, which parameter-schema compares.)
    const named = { type: "string", enum: ["latest"] };
    expectViolations(
      "schema-alternatives",
      withParameter({ oneOf: [named, { type: "integer" }] }),
      withParameter({ oneOf: [named] }),
      [
        {
          location: "GET /pets#/parameters/query/id/schema/oneOf/1",
          message:
            "query parameter \"id\": the contract's oneOf alternative 1 is accepted by none of the implementation's alternatives (schema)",
        },
      ],
    );
    const withHeader = (schema: unknown) =>
      openapi({ "/pets": { get: { responses: { "200": { description: "ok", headers: { "X-Next": { schema } } } } } } });
    expectViolations(
      "schema-alternatives",
      withHeader({ oneOf: [named, { type: "integer" }] }),
      withHeader({ oneOf: [named, { type: "integer" }, { type: "boolean" }] }),
      [
        {
          location: "GET /pets#/responses/200/headers/X-Next/schema/oneOf",
          message:
            "status 200: response header \"X-Next\": the implementation's oneOf alternative 2 fits none of the contract's alternatives",
        },
      ],
    );
  });
});

describe("schema-alternatives with nullable beside oneOf", () => {
  const schemas = {
    Card: { type: "object", properties: { last4: { type: "string" } } },
    Bank: { type: "object", properties: { iban: { type: "string" } } },
  };
  const payment = (method: unknown) =>
    openapi(
      {
        "/orders": {
          get: { responses: responses({ "200": { type: "object", required: ["method"], properties: { method } } }) },
        },
      },
      components(schemas),
    );
  const nullableEither = payment({ nullable: true, oneOf: [ref("Card"), ref("Bank")] });

  it("does not report null the contract allows when the implementation writes the oneOf with a single alternative (or wraps it)", () => {
    expectValid("schema-alternatives", nullableEither, payment({ nullable: true, oneOf: [ref("Card")] }));
    expectValid("schema-alternatives", nullableEither, payment({ nullable: true, allOf: [ref("Card")] }));
    expectValid(
      "schema-alternatives",
      payment({ nullable: true, type: "object", oneOf: [ref("Card"), ref("Bank")] }),
      payment({ nullable: true, type: "object", oneOf: [ref("Card")] }),
    );
  });

  it("still reports a single implementation alternative the contract's alternatives do not cover", () => {
    expectViolations("schema-alternatives", nullableEither, payment({ nullable: true, oneOf: [{ type: "string" }] }), [
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/method/oneOf",
        message: "status 200: the implementation's schema fits none of the contract's alternatives",
      },
    ]);
  });
});

describe("schema-alternatives with direction", () => {
  const response = (schema: unknown) => openapi({ "/pets": { get: { responses: responses({ "200": schema }) } } });
  const request = (schema: unknown) =>
    openapi({
      "/pets": {
        post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "204": null }) },
      },
    });
  const openObject = { type: "object" };

  it("approves a response alternative that an open contract alternative covers, and a request alternative added", () => {
    expectValid("schema-alternatives", response({ oneOf: [cat, openObject] }), response({ oneOf: [cat, dog, bird] }));
    expectValid(
      "schema-alternatives",
      response({ anyOf: [{ type: "string" }, openObject] }),
      response({ anyOf: [{ type: "string" }, dog] }),
    );
    expectValid("schema-alternatives", request({ oneOf: [cat] }), request({ oneOf: [cat, dog] }));
  });

  it("reports a response alternative that admits values the contract refuses, and a request alternative removed", () => {
    expectViolations(
      "schema-alternatives",
      response({ oneOf: [cat, dog] }),
      response({ oneOf: [cat, dog, { type: "string" }] }),
      [
        {
          location: "GET /pets#/responses/200/content/application~1json/schema/oneOf",
          message:
            "the implementation's oneOf alternative 2 fits none of the contract's alternatives, so it may return values the contract does not allow",
        },
      ],
    );
    expectViolations(
      "schema-alternatives",
      request({ oneOf: [cat, dog, { type: "string" }] }),
      request({ oneOf: [cat, dog] }),
      [
        {
          location: "POST /pets#/requestBody/content/application~1json/schema/oneOf/2",
          message: "the contract's oneOf alternative 2 is accepted by none of the implementation's alternatives",
        },
      ],
    );
  });
});
