// The stateless lane's listing schemas (src/mcp/stateless/json-schema.ts): they accept every value (the pipeline
// validates), and a schema given as a function is converted when the SDK first asks for it, once.
import { describe, expect, it } from "vitest";
import { jsonOnlySchema } from "../../src/mcp/stateless/json-schema";

type Std = {
  "~standard": { validate(value: unknown): { value: unknown }; jsonSchema: { input(): unknown; output(): unknown } };
};

describe("jsonOnlySchema", () => {
  it("passes every value through and lists the JSON Schema without its $schema dialect", () => {
    const schema = jsonOnlySchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { type: "string" } },
    }) as unknown as Std;
    expect(schema["~standard"].validate({ a: 1 })).toEqual({ value: { a: 1 } });
    expect(schema["~standard"].jsonSchema.input()).toEqual({ type: "object", properties: { a: { type: "string" } } });
  });

  it("converts a schema given as a function only when first asked, and only once", () => {
    let conversions = 0;
    const schema = jsonOnlySchema(() => {
      conversions++;
      return { $schema: "x", type: "object" };
    }) as unknown as Std;
    expect(conversions).toBe(0);
    expect(schema["~standard"].jsonSchema.output()).toEqual({ type: "object" });
    expect(schema["~standard"].jsonSchema.input()).toEqual({ type: "object" });
    expect(conversions).toBe(1);
  });
});
