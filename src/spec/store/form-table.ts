/**
 * Which blob holds the verdict form (verdict-form.ts) of a stored contract document, per form version, and how a
 * reader gets the cheapest stored source of a document: its form of the current version when there is one, else
 * the uploaded bytes. A source of one piece comes back inline, so a small document costs no further call.
 */
import { getBlob, readChunk, type BlobInfo } from "./blob-table";
import { VERDICT_FORM_VERSION } from "./verdict-form";

export function putForm(sql: SqlStorage, contentHash: string, formHash: string): void {
  if (!getBlob(sql, formHash)) throw new Error("verdict form is not stored");
  sql.exec("INSERT OR IGNORE INTO contract_forms (content_hash, form_version, form_hash) VALUES (?, ?, ?)", contentHash, VERDICT_FORM_VERSION, formHash);
}

function getForm(sql: SqlStorage, contentHash: string): BlobInfo | null {
  const row = sql.exec<{ form_hash: string }>("SELECT form_hash FROM contract_forms WHERE content_hash = ? AND form_version = ?", contentHash, VERDICT_FORM_VERSION).toArray()[0];
  return row ? getBlob(sql, row.form_hash) : null;
}

/** Where to read a stored document from: `form` (decode only) or `document` (the uploaded bytes, parsed again). */
export interface DocumentSource extends BlobInfo {
  kind: "form" | "document";
  /** The bytes, when they fit in one piece. */
  inline: Uint8Array | null;
}

export function documentSource(sql: SqlStorage, contentHash: string): DocumentSource | null {
  const form = getForm(sql, contentHash);
  const info = form ?? getBlob(sql, contentHash);
  if (!info) return null;
  return { ...info, kind: form ? "form" : "document", inline: info.chunkCount === 1 ? readChunk(sql, info.hash, 0) : null };
}
