/**
 * A Standard Schema that carries a JSON Schema for listings and accepts every value. The SDK v2 McpServer
 * validates tool input and output itself when given a real schema; Arbiter's pipeline (runToolCall) already
 * validates both and audits the refusal, so the SDK must pass arguments through untouched.
 */
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

export function jsonOnlySchema(json: Record<string, unknown>): StandardSchemaWithJSON {
  const { $schema: _dialect, ...schema } = json;
  return {
    "~standard": {
      version: 1,
      vendor: "arbiter",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  } as unknown as StandardSchemaWithJSON;
}
