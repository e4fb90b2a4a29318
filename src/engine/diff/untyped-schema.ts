/**
 * Whether a media type's schema promises nothing about the body: no schema at all, `true`, or a schema whose
 * keywords only annotate (`{}`, `{description: ...}`). Such a body may be any value, so against a contract that
 * types the body the implementation's description no longer says what it sends or reads.
 */
import type { DocumentIndex } from "../normalize/normalize-document";
import { isRecord } from "../normalize/normalize-pointer";
import { resolveSchema } from "../normalize/normalize-schema";

const ANNOTATIONS: ReadonlySet<string> = new Set([
  "description",
  "summary",
  "title",
  "example",
  "examples",
  "deprecated",
  "externalDocs",
  "xml",
  "$comment",
  "default",
  "readOnly",
  "writeOnly",
  "$schema",
  "$id",
]);

export function promisesNothing(schema: unknown, document: DocumentIndex): boolean {
  if (schema === undefined || schema === true) return true;
  const resolved = resolveSchema(schema, { resolver: document.resolver, version: document.version });
  if (resolved === true) return true;
  if (!isRecord(resolved)) return false;
  for (const key in resolved) if (!ANNOTATIONS.has(key) && !key.startsWith("x-")) return false;
  return true;
}
