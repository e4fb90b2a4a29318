/**
 * The verdict form of a stored contract version: the validated document as compact JSON with every non-ASCII
 * character escaped (`\uXXXX`), kept beside the uploaded bytes. Reading it back is one ASCII decode (the fast path
 * of TextDecoder, a one-byte string) and one JSON.parse: no YAML parser, no structural checks, no `$ref`
 * validation, because the document passed all of them when it was uploaded. The uploaded bytes stay the record
 * (downloads, hashes, the document problems of an upload); the form only feeds verdicts.
 *
 * VERDICT_FORM_VERSION names the encoding. A reader takes only forms of its own version and otherwise parses the
 * original bytes as before, so data stored before the form existed, or under another version, still works.
 * Pure (no storage, no Workers types): the benchmark and the memory script run this very code.
 */
import type { DocumentFormat } from "../../engine";
import type { OpenApiDocument } from "../../engine";
import { decodeUtf8Strict } from "../../lib/utf8";
import { stripAnnotations } from "../../engine";

export const VERDICT_FORM_VERSION = 1;
/** The comparison form's version, a form version of its own in the same table (contract_forms). */
export const COMPARISON_FORM_VERSION = 2;

/**
 * True when JSON.stringify then JSON.parse gives back a value the engine cannot tell from `value`: every number
 * finite and not -0 (JSON has neither: 1e999 parses to Infinity, and Infinity would come back as null), and, for
 * YAML, no node reached twice (an alias would come back as two copies).
 */
function survivesJson(value: unknown, mayShareNodes: boolean): boolean {
  const seen = mayShareNodes ? new Set<object>() : null;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "number") {
      if (!Number.isFinite(node) || Object.is(node, -0)) return false;
      continue;
    }
    if (typeof node !== "object" || node === null) {
      if (typeof node !== "string" && typeof node !== "boolean" && node !== null) return false;
      continue;
    }
    if (seen) {
      if (seen.has(node)) return false;
      seen.add(node);
    }
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else for (const key in node) stack.push((node as Record<string, unknown>)[key]);
  }
  return true;
}

const NON_ASCII = /[\u0080-\uffff]/g;
const escapeChar = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** The verdict form of a validated document, or null when JSON cannot carry it exactly (the bytes are read then). */
export function encodeVerdictForm(document: OpenApiDocument, format: DocumentFormat): Uint8Array | null {
  if (!survivesJson(document, format === "yaml")) return null;
  return asciiJson(document);
}

/**
 * The comparison form (COMPARISON_FORM_VERSION): the verdict form of the document without the annotations no rule
 * reads (engine/strip-annotations.ts), read only as the contract side of a verdict or a comparison, where it gives
 * the same verdict as the whole document at about half the size (4.2 of 6.9 MB for GitHub's description). Null when
 * there is no verdict form, or when the annotations cannot be stripped safely.
 */
export function encodeComparisonForm(document: OpenApiDocument, format: DocumentFormat): Uint8Array | null {
  if (!survivesJson(document, format === "yaml")) return null;
  const stripped = stripAnnotations(document);
  return stripped ? asciiJson(stripped) : null;
}

function asciiJson(document: OpenApiDocument): Uint8Array {
  // Non-ASCII can only occur inside JSON strings, where \uXXXX means the same character (surrogates included).
  return new TextEncoder().encode(JSON.stringify(document).replace(NON_ASCII, escapeChar));
}

/** The document of a stored verdict form (null if the stored bytes are not one, which the store never writes). */
export function decodeVerdictForm(bytes: Uint8Array): OpenApiDocument | null {
  try {
    const text = decodeUtf8Strict(bytes);
    if (text === null) return null;
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as OpenApiDocument) : null;
  } catch {
    return null;
  }
}
