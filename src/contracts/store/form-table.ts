/**
 * Which blobs hold the forms (verdict-form.ts) of a stored contract document, per form version, and how a reader
 * gets the cheapest stored source of a document: for reading, its verdict form of the current version when there
 * is one, else the uploaded bytes; as the contract side of a verdict or comparison, its comparison form first. A
 * source of one piece comes back inline, so a small document costs no further call.
 */
import { getBlob, readChunk, type BlobInfo } from "./blob-table";
import { COMPARISON_FORM_VERSION, VERDICT_FORM_VERSION } from "./verdict-form";

export function putForm(sql: SqlStorage, contentHash: string, formHash: string, formVersion: number): void {
  if (!getBlob(sql, formHash)) throw new Error("verdict form is not stored");
  sql.exec(
    "INSERT OR IGNORE INTO contract_forms (content_hash, form_version, form_hash) VALUES (?, ?, ?)",
    contentHash,
    formVersion,
    formHash,
  );
}

function getForm(sql: SqlStorage, contentHash: string, formVersion: number): BlobInfo | null {
  const row = sql
    .exec<{ form_hash: string }>(
      "SELECT form_hash FROM contract_forms WHERE content_hash = ? AND form_version = ?",
      contentHash,
      formVersion,
    )
    .toArray()[0];
  return row ? getBlob(sql, row.form_hash) : null;
}

/** Where to read a stored document from: `form` (decode only) or `document` (the uploaded bytes, parsed again). */
export interface DocumentSource extends BlobInfo {
  kind: "form" | "document";
  /** The bytes, when they fit in one piece. */
  inline: Uint8Array | null;
}

/**
 * `purpose` "compare": the document is only the contract side of a verdict or comparison, which its comparison
 * form (annotations stripped) serves as well as the whole document.
 */
export function documentSource(
  sql: SqlStorage,
  contentHash: string,
  purpose: "read" | "compare" = "read",
): DocumentSource | null {
  const form =
    (purpose === "compare" ? getForm(sql, contentHash, COMPARISON_FORM_VERSION) : null) ??
    getForm(sql, contentHash, VERDICT_FORM_VERSION);
  const info = form ?? getBlob(sql, contentHash);
  if (!info) return null;
  return {
    ...info,
    kind: form ? "form" : "document",
    inline: info.chunkCount === 1 ? readChunk(sql, info.hash, 0) : null,
  };
}
