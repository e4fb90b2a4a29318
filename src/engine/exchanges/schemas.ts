/**
 * JSON Schema validators for the parts of an exchange (parameters, request bodies, response bodies and headers),
 * built with the same conversion as validate_response_payload (payload-schema.ts: OpenAPI 3.0/3.1 semantics,
 * readOnly/writeOnly by direction) and kept in a bounded cache keyed by document, operation and part, so the
 * thousandth exchange of an operation reuses the validator the first one built.
 */
import { MAX_PAYLOAD_DEPTH, nestsDeeperThan } from "../payload/payload";
import { MeteredValidator, UnusableSchema } from "../payload/metered-validator";
import { leafErrors } from "../payload/payload-errors";
import { convertToJsonSchema, SchemaConversionError } from "../payload/payload-schema";
import type { Direction } from "../diff/schema-change";
import type { OpenApiDocument, PayloadError } from "../types";
import { VALUE_WORK_UNITS, WorkBudget, WorkBudgetExhausted } from "../payload/work-budget";

const MAX_CACHED_VALIDATORS = 2000;

interface Entry {
  validator: MeteredValidator;
}

export type SchemaCheck =
  | { ok: true; errors: PayloadError[] }
  | { ok: false; unusable: string }
  | { ok: false; tooDeep: true }
  | { ok: false; tooCostly: string };

export class SchemaValidators {
  private readonly cache = new Map<string, Entry | string>();
  /** Validators built so far (cache misses). */
  buildCount = 0;

  private entry(
    key: string,
    document: OpenApiDocument,
    version: string,
    schema: unknown,
    direction: Direction,
  ): Entry | string {
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      // Recency: Map order is insertion order, so the first key is the least recently used.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    let built: Entry | string;
    try {
      const converted = convertToJsonSchema(document, schema, version, direction).schema;
      built = { validator: new MeteredValidator(converted) };
      this.buildCount++;
    } catch (error) {
      if (
        !(error instanceof SchemaConversionError) &&
        !(error instanceof UnusableSchema) &&
        !(error instanceof Error && /\$ref|schema URI/.test(error.message))
      )
        throw error;
      // Remembered as unusable, so a broken schema is reported without being converted again per exchange.
      built = error.message.split("\n")[0] ?? "the schema cannot be converted";
    }
    this.cache.set(key, built);
    if (this.cache.size > MAX_CACHED_VALIDATORS) this.cache.delete(this.cache.keys().next().value as string);
    return built;
  }

  /** Throws WorkBudgetExhausted when the value (or the upload, `upload`) runs out of budget. */
  check(
    key: string,
    document: OpenApiDocument,
    version: string,
    schema: unknown,
    direction: Direction,
    value: unknown,
    upload: WorkBudget,
  ): SchemaCheck {
    if (nestsDeeperThan(value, MAX_PAYLOAD_DEPTH)) return { ok: false, tooDeep: true };
    const entry = this.entry(key, document, version, schema, direction);
    if (typeof entry === "string") return { ok: false, unusable: entry };
    try {
      const result = entry.validator.validate(value, new WorkBudget(VALUE_WORK_UNITS, "value", upload));
      // No payload for the messages: recorded traffic's values never reach a stored finding (traffic-text.ts).
      return { ok: true, errors: result.valid ? [] : leafErrors(result.errors, result.schema) };
    } catch (error) {
      // One value too costly to validate is a finding of its own; the upload goes on (its own limit still holds).
      if (error instanceof WorkBudgetExhausted && error.scope === "value")
        return { ok: false, tooCostly: error.message };
      if (!(error instanceof UnusableSchema)) throw error;
      return { ok: false, unusable: error.message };
    }
  }
}
