/**
 * Validates a response payload against the contract's JSON Schema for that operation, status and media type.
 * Validators are built once per (document key, operation, response entry, media type) and kept in a bounded
 * cache: repeated validation against the same contract version does not rebuild (`buildCount` shows it).
 */
import { indexDocument } from "../normalize/normalize-document";
import { escapeToken } from "../normalize/normalize-pointer";
import { MeteredValidator, UnusableSchema } from "./metered-validator";
import { leafErrors } from "./payload-errors";
import { findMediaType, findOperation, findResponseKey } from "./payload-route";
import { convertToJsonSchema, SchemaConversionError } from "./payload-schema";
import { responsesOf } from "../diff/operation-parts";
import type { OpenApiDocument, PayloadCheckInput, PayloadVerdict, Violation } from "../types";
import { VALUE_WORK_UNITS, WorkBudget, WorkBudgetExhausted } from "./work-budget";

/** Payloads nested deeper than this are refused before validation (the validator recurses per level). */
export const MAX_PAYLOAD_DEPTH = 256;
const MAX_CACHED_VALIDATORS = 500;

interface CachedValidator {
  validator: MeteredValidator;
}

export interface PayloadValidator {
  validate(document: OpenApiDocument, documentKey: string, input: PayloadCheckInput): PayloadVerdict;
  /** Number of validators built so far (cache misses). */
  readonly buildCount: number;
}

/**
 * Whether `payload` nests arrays/objects deeper than `limit`. Recursion stops at `limit`, so a hostile payload
 * cannot exhaust the stack, and nothing is allocated per node (this runs before every validation).
 */
export function nestsDeeperThan(payload: unknown, limit: number): boolean {
  if (typeof payload !== "object" || payload === null) return false;
  if (limit <= 0) return true;
  if (Array.isArray(payload)) {
    for (const item of payload) if (nestsDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in payload) {
    if (nestsDeeperThan((payload as Record<string, unknown>)[key], limit - 1)) return true;
  }
  return false;
}

function rejected(violation: Violation, extra: Partial<PayloadVerdict> = {}): PayloadVerdict {
  return { approved: false, errors: [], violations: [violation], ...extra };
}

/** Why no schema was found, and the next step: another content type when the response declares one, else the contract. */
function missingSchemaMessage(declared: readonly string[], contentType: string | undefined, where: string): string {
  const cannot = "so the payload cannot be validated";
  if (declared.length === 0)
    return `the contract declares no content for ${where}, ${cannot}: add a JSON schema to the contract`;
  if (contentType) {
    return `the contract declares no JSON schema for ${contentType} in ${where} (it declares ${declared.join(", ")}), ${cannot}: pass the content type the payload really has if it is one of those, or add a JSON schema for ${contentType} to the contract`;
  }
  return `the contract declares content ${declared.join(", ")} without a JSON schema for ${where}, ${cannot}: add a JSON schema to the contract`;
}

export function createPayloadValidator(): PayloadValidator {
  const cache = new Map<string, CachedValidator>();
  let buildCount = 0;

  function validatorFor(key: string, build: () => Record<string, unknown>): CachedValidator {
    const cached = cache.get(key);
    if (cached) {
      // Refresh recency: Map iteration order is insertion order, so the first key is the least recently used.
      cache.delete(key);
      cache.set(key, cached);
      return cached;
    }
    const entry = { validator: new MeteredValidator(build()) };
    buildCount++;
    cache.set(key, entry);
    if (cache.size > MAX_CACHED_VALIDATORS) cache.delete(cache.keys().next().value as string);
    return entry;
  }

  return {
    get buildCount() {
      return buildCount;
    },
    validate(document, documentKey, input) {
      const index = indexDocument(document);
      const method = input.method.toUpperCase();
      const operation = findOperation(index, method, input.path);
      if (!operation) {
        return rejected({
          rule: "undocumented-operation",
          severity: "error",
          location: `${method} ${input.path}`,
          message: `the contract has no operation ${method} ${input.path}: check the method and path (a template such as /orders/{id} or a concrete path)`,
        });
      }
      const responseKey = findResponseKey(operation, input.status);
      if (responseKey === undefined) {
        return rejected(
          {
            rule: "undocumented-status-code",
            severity: "error",
            location: `${operation.label}#/responses`,
            message: `the contract declares no response ${input.status} (nor ${String(input.status)[0]}XX or default) for ${operation.label}`,
          },
          { operation: operation.label },
        );
      }
      const response = responsesOf(operation)[responseKey];
      const { found, declared } = findMediaType(index, response, input.contentType);
      const responsePointer = `#/responses/${escapeToken(responseKey)}`;
      if (!found) {
        return rejected(
          {
            rule: "missing-schema",
            severity: "error",
            location: `${operation.label}${responsePointer}`,
            message: missingSchemaMessage(declared, input.contentType, `response ${responseKey} of ${operation.label}`),
          },
          { operation: operation.label, responseKey },
        );
      }
      if (input.payload === undefined) {
        return rejected(
          {
            rule: "payload-missing",
            severity: "error",
            location: `${operation.label}${responsePointer}`,
            message: "no payload was given: send the response body as JSON",
          },
          { operation: operation.label, responseKey },
        );
      }
      if (nestsDeeperThan(input.payload, MAX_PAYLOAD_DEPTH)) {
        return rejected(
          {
            rule: "payload-too-deep",
            severity: "error",
            location: `${operation.label}${responsePointer}`,
            message: `the payload nests more than ${MAX_PAYLOAD_DEPTH} levels deep and was not validated`,
          },
          { operation: operation.label, responseKey },
        );
      }
      let entry: CachedValidator;
      try {
        entry = validatorFor(
          `${documentKey}\n${operation.label}\n${responseKey}\n${found.mediaType}`,
          () => convertToJsonSchema(document, found.schema, index.version, "response", index.resolver).schema,
        );
      } catch (error) {
        if (
          !(error instanceof SchemaConversionError) &&
          !(error instanceof UnusableSchema) &&
          !(error instanceof Error && /\$ref|schema URI/.test(error.message))
        )
          throw error;
        return rejected(
          {
            rule: "schema-unusable",
            severity: "error",
            location: `${operation.label}${responsePointer}`,
            message: `the contract's schema for this response cannot be used: ${error.message.split("\n")[0]}`,
          },
          { operation: operation.label, responseKey },
        );
      }
      let result;
      try {
        result = entry.validator.validate(input.payload, new WorkBudget(VALUE_WORK_UNITS, "value"));
      } catch (error) {
        if (error instanceof WorkBudgetExhausted) {
          return rejected(
            {
              rule: "work-budget-exhausted",
              severity: "error",
              location: `${operation.label}${responsePointer}`,
              message: `cannot verify: ${error.message}`,
            },
            { operation: operation.label, responseKey },
          );
        }
        if (!(error instanceof UnusableSchema)) throw error;
        return rejected(
          {
            rule: "schema-unusable",
            severity: "error",
            location: `${operation.label}${responsePointer}`,
            message: `the contract's schema for this response cannot be used: ${error.message}`,
          },
          { operation: operation.label, responseKey },
        );
      }
      const errors = result.valid ? [] : leafErrors(result.errors, result.schema, input.payload);
      return { approved: errors.length === 0, operation: operation.label, responseKey, errors, violations: [] };
    },
  };
}
