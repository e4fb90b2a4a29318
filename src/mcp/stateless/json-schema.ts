/**
 * A Standard Schema that carries a JSON Schema for listings and accepts every value. The SDK v2 McpServer
 * validates tool input and output itself when given a real schema; Arbiter's pipeline (runToolCall) already
 * validates both and audits the refusal, so the SDK must pass arguments through untouched.
 */
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

export function jsonOnlySchema(
  json: Record<string, unknown> | (() => Record<string, unknown>),
): StandardSchemaWithJSON {
  // A function is called the first time the SDK asks (a listing, or a call of this very tool), and only then: a
  // stateless request that calls one tool converts that tool's schemas, not the whole catalog's.
  let schema: Record<string, unknown> | undefined;
  const converted = () => {
    if (!schema) {
      const { $schema: _dialect, ...rest } = typeof json === "function" ? json() : json;
      schema = rest;
    }
    return schema;
  };
  // biome-ignore lint/plugin: SDK adapter: the SDK 2.x takes a standard schema; this one is plain JSON Schema validated by the governed core
  return {
    "~standard": {
      version: 1,
      vendor: "arbiter",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: converted, output: converted },
    },
  } as unknown as StandardSchemaWithJSON;
}
