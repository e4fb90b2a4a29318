/**
 * Uploaded bytes -> validated OpenAPI document. Pure (no storage, no Workers types), so the memory script in
 * scripts/ can run the very same code in Node.
 */
import { decodeUtf8Strict, utf8JsonAsAscii } from "../../lib/utf8";
import { parseOpenApiSource } from "./document";
import type { DocumentCheckOptions } from "./document-checks";
import type { DocumentProblem, OpenApiDocument } from "../types";

export type DocumentFormat = "json" | "yaml";

/** Facts about a stored OpenAPI document, taken when it was parsed at upload. */
export interface DocumentFacts {
  contentHash: string;
  size: number;
  format: DocumentFormat;
  openapiVersion: string;
  operationCount: number;
}

export type ParsedUpload =
  | { ok: true; document: OpenApiDocument; facts: Omit<DocumentFacts, "contentHash" | "size"> }
  | { ok: false; problems: DocumentProblem[] };

/** UTF-8 bytes -> validated OpenAPI document (JSON or YAML), or the list of what is wrong. */
export function parseDocumentBytes(bytes: Uint8Array, options: DocumentCheckOptions = {}): ParsedUpload {
  // The text lives only in `source`, which the parser empties once it has parsed it (parseOpenApiSource). A JSON
  // document goes to JSON.parse in its ASCII form (lib/utf8.ts), a one-byte string; its decoded text is made only
  // when JSON.parse refuses it, for a message whose positions are the document's.
  const ascii = utf8JsonAsAscii(bytes);
  const source =
    ascii === null
      ? { text: decodeUtf8Strict(bytes) ?? undefined }
      : { text: ascii, decoded: () => decodeUtf8Strict(bytes) ?? "" };
  if (source.text === undefined)
    return {
      ok: false,
      problems: [{ path: "", message: "the document is not valid UTF-8 text: save it as UTF-8 JSON or YAML" }],
    };
  const parsed = parseOpenApiSource(source, options);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  return {
    ok: true,
    document: parsed.document,
    facts: { format: parsed.format, openapiVersion: parsed.openapiVersion, operationCount: parsed.operationCount },
  };
}
