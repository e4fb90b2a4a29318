// Payload errors in plain words: what the schema expects and what the payload holds, at a JSON pointer, instead
// of the validator library's "Instance type "string" is invalid. Expected "number"."
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { leafErrors } from "../../../../src/engine/payload/payload-errors";

const schema = {
  type: "object",
  required: ["id", "total", "status"],
  properties: {
    id: { type: "string", minLength: 4 },
    total: { type: "number", minimum: 0 },
    status: { type: "string", enum: ["PENDING", "PAID"] },
    lines: {
      type: "array",
      maxItems: 1,
      items: { type: "object", required: ["sku"], properties: { sku: { type: "string", pattern: "^[A-Z]-\\d+$" } } },
    },
  },
};

function errors(payload: unknown) {
  const result = new Validator(structuredClone(schema) as object, "2020-12", false).validate(payload);
  return leafErrors(result.errors, schema, payload);
}

describe("plain schema messages", () => {
  it("name the expected and the received value at each pointer", () => {
    const found = errors({ id: "o1", total: "12.00", status: "CANCELLED", lines: [{ sku: "a1" }, {}] });
    const at = (pointer: string) => found.filter((e) => e.pointer === pointer).map((e) => e.message);
    expect(at("/total")).toEqual(['expected a number, received the string "12.00"']);
    expect(at("/status")).toEqual(['expected one of "PENDING", "PAID"; received the string "CANCELLED"']);
    expect(at("/id")).toEqual(["expected at least 4 characters, received 2 characters"]);
    expect(at("/lines")).toEqual(["expected at most 1 item, received 2 items"]);
    expect(at("/lines/0/sku")).toEqual([
      'expected text matching the pattern "^[A-Z]-\\\\d+$", received the string "a1"',
    ]);
    expect(at("/lines/1")).toEqual(['required property "sku" is missing']);
    expect(found.map((e) => e.message).join("\n")).not.toMatch(/Instance/);
  });

  it("say which required properties are missing and how far a number is out", () => {
    const found = errors({ id: "ord_1", total: -1 }).map((e) => [e.pointer, e.message]);
    expect(found).toHaveLength(2);
    expect(found).toEqual(
      expect.arrayContaining([
        ["/total", "expected at least 0, received the integer -1"],
        ["", 'required property "status" is missing'],
      ]),
    );
  });
});
