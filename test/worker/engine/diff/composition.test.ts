/**
 * How oneOf/anyOf findings are placed and worded by the rules that report them (diff/composition.ts):
 * a changed alternative is reported at its own index, and a property the enclosing schema defines is known
 * inside each branch.
 */
import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

describe("oneOf/anyOf findings name the right alternative and the right schema", () => {
  it("reports a change in the 19th of 20 alternatives at oneOf/18, not at the closest one", () => {
    // Each variant differs from the others only in an optional property, so for the changed one every contract
    // alternative is an equally close miss: only its name pairs it with its own.
    const variant = (index: number, valueType: string) => ({
      type: "object",
      properties: { value: { type: valueType }, [`extra${index}`]: { type: "string" } },
    });
    const schemas = (changed: boolean) =>
      Object.fromEntries(
        Array.from({ length: 20 }, (_, index) => [
          `V${index}`,
          variant(index, changed && index === 18 ? "integer" : "string"),
        ]),
      );
    const doc = (changed: boolean) =>
      openapi(
        {
          "/things": {
            get: {
              responses: responses({
                "200": {
                  oneOf: Array.from({ length: 20 }, (_, index) => ({ $ref: `#/components/schemas/V${index}` })),
                },
              }),
            },
          },
        },
        { components: { schemas: schemas(changed) } },
      );
    expectValid("response-type", doc(false), doc(false));
    expectViolations("response-type", doc(false), doc(true), [
      {
        location: "GET /things#/responses/200/content/application~1json/schema/oneOf/18/properties/value",
        message: "status 200: type is string in the contract but integer in the implementation",
      },
    ]);
  });

  it("knows a property the enclosing schema defines when a branch requires it", () => {
    const contact = (anyOf: unknown[]) =>
      openapi({
        "/contacts": {
          post: {
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { email: { type: "string" }, phone: { type: "string" } },
                    anyOf,
                  },
                },
              },
            },
            responses: responses({ "204": null }),
          },
        },
      });
    expectValid(
      "schema-alternatives",
      contact([{ required: ["email"] }, { required: ["phone"] }]),
      contact([{ required: ["phone"] }, { required: ["email"] }]),
    );
    // The branch pairs with its counterpart at the same place; "phone" is the enclosing schema's, so it is
    // "optional in the contract", not "not defined", and it is reported at the enclosing schema's property.
    expectViolations(
      "request-body-required-property",
      contact([{ required: ["email"] }, { required: ["phone"] }]),
      contact([{ required: ["email", "phone"] }, { required: ["phone"] }]),
      [
        {
          location: "POST /contacts#/requestBody/content/application~1json/schema/properties/phone",
          message: 'the implementation requires property "phone", which the contract makes optional',
        },
      ],
    );
    // Against one schema requiring both, each branch is refused, and the closest miss says why in the same words.
    expectViolations(
      "schema-alternatives",
      contact([{ required: ["email"] }, { required: ["phone"] }]),
      contact([{ required: ["email", "phone"] }]),
      [
        {
          location: "POST /contacts#/requestBody/content/application~1json/schema/anyOf/0",
          message:
            "the contract's anyOf alternative 0 is accepted by none of the implementation's alternatives (schema), so clients sending it are refused (closest: schema, where at /properties/phone the implementation requires property \"phone\", which the contract makes optional)",
        },
        {
          location: "POST /contacts#/requestBody/content/application~1json/schema/anyOf/1",
          message:
            'where at /properties/email the implementation requires property "email", which the contract makes optional',
        },
      ],
    );
  });

  it("reports a change to a property shared by every branch once, at the enclosing schema", () => {
    const shared = (idType: string) =>
      openapi({
        "/items": {
          get: {
            responses: responses({
              "200": {
                type: "object",
                properties: { id: { type: idType } },
                oneOf: [
                  { properties: { a: { type: "string" } }, required: ["a"] },
                  { properties: { b: { type: "string" } }, required: ["b"] },
                ],
              },
            }),
          },
        },
      });
    expectViolations("response-type", shared("string"), shared("integer"), [
      {
        location: "GET /items#/responses/200/content/application~1json/schema/properties/id",
        message: "status 200: type is string in the contract but integer in the implementation",
      },
    ]);
  });

  it("counts the members as written: a null member before the changed one, alternatives held by an allOf member", () => {
    const a = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const b = (type: string) => ({ type: "object", properties: { b: { type } }, required: ["b"] });
    const withNull = (type: string) =>
      openapi(
        { "/x": { get: { responses: responses({ "200": { oneOf: [{ type: "null" }, a, b(type)] } }) } } },
        {},
        "3.1.0",
      );
    expectViolations("response-type", withNull("string"), withNull("integer"), [
      {
        location: "GET /x#/responses/200/content/application~1json/schema/oneOf/2/properties/b",
        message: "type is string in the contract but integer",
      },
    ]);
    const inAllOf = (type: string) =>
      openapi({
        "/x": {
          get: {
            responses: responses({
              "200": { allOf: [{ type: "object", properties: { id: { type: "string" } } }, { oneOf: [a, b(type)] }] },
            }),
          },
        },
      });
    expectViolations("response-type", inAllOf("string"), inAllOf("integer"), [
      {
        location: "GET /x#/responses/200/content/application~1json/schema/allOf/1/oneOf/1/properties/b",
        message: "type is string in the contract but integer",
      },
    ]);
  });

  it("reads alternatives behind a wrapper (3.1 anyOf with null, a single-member allOf) with the properties beside them, like the plain schema", () => {
    // A nullable Pet whose properties sit beside its oneOf, written four ways: a 3.1 type list, the FastAPI
    // `anyOf: [$ref, {type: "null"}]`, a 3.0 `nullable` and the NestJS `nullable` + `allOf: [$ref]`.
    const pet = (extra: Record<string, unknown>, required = ["kind"]) => ({
      type: "object",
      required,
      properties: { kind: { type: "string" }, ...extra },
      oneOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: "string" } }, required: ["b"] },
      ],
    });
    const ref = { $ref: "#/components/schemas/Pet" };
    const doc = (schema: unknown, petSchema: unknown, version: string) =>
      openapi(
        {
          "/pets": {
            post: {
              requestBody: { content: { "application/json": { schema } } },
              responses: responses({ "200": schema }),
            },
          },
        },
        { components: { schemas: { Pet: petSchema } } },
        version,
      );
    const styles = (extra: Record<string, unknown> = {}, required?: string[]) => ({
      typeList: doc(ref, { ...pet(extra, required), type: ["object", "null"] }, "3.1.0"),
      anyOfNull: doc({ anyOf: [ref, { type: "null" }] }, pet(extra, required), "3.1.0"),
      nullable: doc(ref, { ...pet(extra, required), nullable: true }, "3.0.3"),
      allOfWrapper: doc({ nullable: true, allOf: [ref] }, pet(extra, required), "3.0.3"),
    });
    const equal = Object.values(styles());
    for (const rule of [
      "request-body-required-property",
      "request-body-property-missing",
      "response-required-property",
      "schema-alternatives",
      "schema-alternatives-undecided",
    ]) {
      for (const contract of equal) for (const snapshot of equal) expectValid(rule, contract, snapshot);
    }
    // A real change behind the wrapper is still found, once, as the enclosing schema's property, in both directions.
    const optional = styles({ name: { type: "string" } });
    const named = styles({ name: { type: "string" } }, ["kind", "name"]);
    expectViolations("request-body-required-property", optional.anyOfNull, named.anyOfNull, [
      {
        location: "POST /pets#/requestBody/content/application~1json/schema/properties/name",
        message: 'the implementation requires property "name", which the contract makes optional',
      },
    ]);
    expectViolations("response-required-property", named.allOfWrapper, styles().allOfWrapper, [
      {
        location: "POST /pets#/responses/200/content/application~1json/schema/properties/name",
        message: 'status 200: required property "name" is missing from the implementation\'s response',
      },
    ]);
  });

  it("places a change inside a wrapped alternative at the alternative as written: anyOf/0/oneOf/1", () => {
    const pet = (bType: string) => ({
      type: "object",
      oneOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: bType } }, required: ["b"] },
      ],
    });
    const doc = (bType: string) =>
      openapi(
        {
          "/pets": {
            get: {
              responses: responses({ "200": { anyOf: [{ $ref: "#/components/schemas/Pet" }, { type: "null" }] } }),
            },
          },
        },
        { components: { schemas: { Pet: pet(bType) } } },
        "3.1.0",
      );
    expectViolations("response-type", doc("string"), doc("integer"), [
      {
        location: "GET /pets#/responses/200/content/application~1json/schema/anyOf/0/oneOf/1/properties/b",
        message: "status 200: type is string in the contract but integer in the implementation",
      },
    ]);
  });

  it("pairs an alternative written as allOf: [$ref] (NestJS) with its component by name, so its change is reported inside it", () => {
    const cat = { type: "object", required: ["meow"], properties: { meow: { type: "string" } } };
    const dog = (bark: string) => ({ type: "object", required: ["bark"], properties: { bark: { type: bark } } });
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const doc = (alternatives: unknown[], bark: string) =>
      openapi(
        {
          "/pets": {
            post: {
              requestBody: { content: { "application/json": { schema: { oneOf: alternatives } } } },
              responses: responses({ "200": { oneOf: alternatives } }),
            },
          },
        },
        { components: { schemas: { Cat: cat, Dog: dog(bark) } } },
      );
    const plain = (bark: string) => doc([ref("Cat"), ref("Dog")], bark);
    const wrapped = (bark: string) => doc([{ allOf: [ref("Cat")] }, { allOf: [ref("Dog")] }], bark);
    expectValid("schema-alternatives", plain("boolean"), wrapped("boolean"));
    expectValid("schema-alternatives", plain("boolean"), wrapped("string"));
    expectValid("schema-alternatives", wrapped("string"), plain("boolean"));
    expectViolations("response-type", plain("boolean"), wrapped("string"), [
      {
        location: "POST /pets#/responses/200/content/application~1json/schema/oneOf/1/properties/bark",
        message: "status 200: type is boolean in the contract but string in the implementation",
      },
    ]);
    expectViolations("request-body-schema", wrapped("string"), plain("boolean"), [
      {
        location: "POST /pets#/requestBody/content/application~1json/schema/oneOf/1/properties/bark",
        message: "type is string in the contract but boolean in the implementation",
      },
    ]);
  });

  it("merges allOf members into one schema, keeping both definitions of a property two members define", () => {
    const doc = (schema: unknown) => openapi({ "/x": { get: { responses: responses({ "200": schema }) } } });
    const contract = doc({ type: "object", properties: { a: { type: "string" } } });
    expectValid(
      "response-type",
      contract,
      doc({
        allOf: [
          { type: "object", properties: { a: { description: "base" } } },
          { properties: { a: { type: "string" } } },
        ],
      }),
    );
    expectViolations(
      "response-type",
      contract,
      doc({
        allOf: [
          { type: "object", properties: { a: { description: "base" } } },
          { properties: { a: { type: "integer" } } },
        ],
      }),
      [
        {
          location: "GET /x#/responses/200/content/application~1json/schema/properties/a",
          message: "type is string in the contract but integer in the implementation",
        },
      ],
    );
  });

  it("keeps what differs between a covered alternative and the one covering it: a response property made optional", () => {
    const pet = (name: string, required: string[]) => ({
      type: "object",
      required,
      properties: { name: { type: "string" }, [name]: { type: "boolean" } },
    });
    const doc = (first: string, firstSchema: unknown) =>
      openapi(
        {
          "/pets": {
            get: {
              responses: responses({
                "200": { oneOf: [{ $ref: `#/components/schemas/${first}` }, { $ref: "#/components/schemas/Dog" }] },
              }),
            },
          },
        },
        {
          components: { schemas: { [first]: firstSchema, Dog: pet("barks", ["name", "barks"]) } },
        },
      );
    // Kitten is Cat under another name with "name" no longer required: Cat covers it, and the change still counts.
    expectViolations(
      "response-property-optional",
      doc("Cat", pet("meows", ["name", "meows"])),
      doc("Kitten", pet("meows", ["meows"])),
      [
        {
          location: "GET /pets#/responses/200/content/application~1json/schema/oneOf/0/properties/name",
          message: 'property "name" is required by the contract but optional in the implementation',
        },
      ],
    );
  });
});
