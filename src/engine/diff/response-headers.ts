/**
 * Response headers of a matched operation pair, lined up by status and (case-insensitive) header name, for the
 * response-header rules. A header's value is described by `schema`, or by the one media type of `content`.
 * OpenAPI: a response header named Content-Type SHALL be ignored (the media type says it).
 */
import { escapeToken, isRecord } from "../normalize/normalize-pointer";
import type { RefResolver } from "../normalize/ref-resolver";
import type { DocumentIndex, OperationPair } from "../normalize/normalize-document";
import { matchingStatusKey, responsesOf, statusKeys } from "./operation-parts";

export interface HeaderSide {
  name: string;
  required: boolean;
  schema: unknown;
  /** Pointer to the schema inside the header, "/schema" or "/content/<type>/schema". */
  schemaPointer: string;
}

export interface HeaderPair {
  status: string;
  /** Pointer inside the contract operation to the header, e.g. "/responses/200/headers/X-Rate-Limit". */
  pointer: string;
  contract: HeaderSide;
  /** Undefined when the implementation does not declare the header for that status. */
  snapshot: HeaderSide | undefined;
}

function headersOf(response: unknown, resolver: RefResolver): Map<string, HeaderSide> {
  const resolved = resolver.deref(response);
  const result = new Map<string, HeaderSide>();
  if (!isRecord(resolved) || !isRecord(resolved.headers)) return result;
  for (const [name, raw] of Object.entries(resolved.headers)) {
    if (name.toLowerCase() === "content-type") continue;
    const header = resolver.deref(raw);
    if (!isRecord(header)) continue;
    let schema: unknown = header.schema;
    let schemaPointer = "/schema";
    if (schema === undefined && isRecord(header.content)) {
      const [mediaType, media] = Object.entries(header.content)[0] ?? [];
      if (mediaType !== undefined && isRecord(media)) {
        schema = media.schema;
        schemaPointer = `/content/${escapeToken(mediaType)}/schema`;
      }
    }
    result.set(name.toLowerCase(), { name, required: header.required === true, schema, schemaPointer });
  }
  return result;
}

const paired = new WeakMap<OperationPair, HeaderPair[]>();

/** Every contract response header of a status both sides declare, with its implementation counterpart; once per pair. */
export function pairResponseHeaders(
  contract: DocumentIndex,
  snapshot: DocumentIndex,
  pair: OperationPair,
): readonly HeaderPair[] {
  let pairs = paired.get(pair);
  if (pairs) return pairs;
  pairs = [];
  const snapshotResponses = responsesOf(pair.snapshot);
  const snapshotKeys = statusKeys(pair.snapshot);
  for (const status of statusKeys(pair.contract)) {
    const snapshotKey =
      matchingStatusKey(status, snapshotKeys) ??
      (status === "default" && "default" in snapshotResponses ? "default" : undefined);
    if (snapshotKey === undefined) continue; // missing-status-code reports it
    const contractHeaders = headersOf(responsesOf(pair.contract)[status], contract.resolver);
    if (contractHeaders.size === 0) continue;
    const snapshotHeaders = headersOf(snapshotResponses[snapshotKey], snapshot.resolver);
    for (const [key, header] of contractHeaders) {
      pairs.push({
        status,
        pointer: `/responses/${escapeToken(status)}/headers/${escapeToken(header.name)}`,
        contract: header,
        snapshot: snapshotHeaders.get(key),
      });
    }
  }
  paired.set(pair, pairs);
  return pairs;
}
