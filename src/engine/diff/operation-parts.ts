/**
 * The parts of a matched operation pair that several rules look at (responses by status code, request and
 * response bodies by media type family), with the schema differences computed once per pair.
 */
import { escapeToken, isRecord } from "../normalize/normalize-pointer";
import type { RefResolver } from "../normalize/ref-resolver";
import type { IndexedOperation } from "../normalize/normalize-document";
import { mediaTypeFamily, pickMediaType } from "./media-types";
import type { SchemaChange } from "./schema-change";

export function responsesOf(operation: IndexedOperation): Record<string, unknown> {
  return isRecord(operation.operation.responses) ? operation.operation.responses : {};
}

/** Status keys without extensions ("200", "4XX", "default"). */
export function statusKeys(operation: IndexedOperation): string[] {
  return Object.keys(responsesOf(operation)).filter((key) => !key.startsWith("x-"));
}

/**
 * The implementation's response entry that answers for the contract's status key: the same code, or a range
 * covering it ("404" is covered by "4XX"). `default` stands for no code in particular and covers nothing.
 */
export function matchingStatusKey(contractKey: string, snapshotKeys: readonly string[]): string | undefined {
  const upper = contractKey.toUpperCase();
  const exact = snapshotKeys.find((key) => key.toUpperCase() === upper);
  if (exact !== undefined) return exact;
  if (/^[1-5]\d\d$/.test(upper)) return snapshotKeys.find((key) => key.toUpperCase() === `${upper[0]}XX`);
  if (/^[1-5]XX$/.test(upper)) return snapshotKeys.find((key) => key[0] === upper[0] && /^\d\d\d$/.test(key));
  return undefined;
}

export function contentOf(container: unknown, resolver: RefResolver): Record<string, unknown> {
  const resolved = resolver.deref(container);
  return isRecord(resolved) && isRecord(resolved.content) ? resolved.content : {};
}

export function schemaOf(mediaTypeObject: unknown): unknown {
  return isRecord(mediaTypeObject) ? mediaTypeObject.schema : undefined;
}

export interface BodyPair {
  /** Pointer inside the contract operation, e.g. "#/responses/200/content/application~1json/schema". */
  pointer: string;
  status?: string;
  contractMediaType: string;
  snapshotMediaType: string;
  changes: readonly SchemaChange[];
  /**
   * The implementation declares the media type with no schema, or one that constrains nothing (`{}`), where the
   * contract's schema does constrain the body (rules response-body-schema-missing, request-body-schema-missing).
   */
  snapshotUntyped: boolean;
}

export interface MediaTypeGap {
  pointer: string;
  status?: string;
  contractMediaType: string;
  /** Media types the implementation declares instead. */
  snapshotMediaTypes: string[];
}

export function pointerToContent(base: string, mediaType: string): string {
  return `${base}/content/${escapeToken(mediaType)}`;
}

/** Contract media types with the implementation's counterpart of the same family, or the gap when none exists. */
export function pairMediaTypes(
  contractContent: Record<string, unknown>,
  snapshotContent: Record<string, unknown>,
): { pairs: [string, string][]; gaps: string[] } {
  const pairs: [string, string][] = [];
  const gaps: string[] = [];
  for (const contractMediaType of Object.keys(contractContent)) {
    const counterpart = pickMediaType(snapshotContent, contractMediaType);
    if (counterpart === undefined) gaps.push(contractMediaType);
    else pairs.push([contractMediaType, counterpart]);
  }
  return { pairs, gaps };
}

export function describeFamilies(content: Record<string, unknown>): string {
  const keys = Object.keys(content);
  return keys.length === 0 ? "none" : keys.map((key) => `${key} (${mediaTypeFamily(key)} family)`).join(", ");
}
