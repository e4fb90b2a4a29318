/**
 * An organization's export archive (`arbiter-organization-export/1`, docs/operations.md) as pieces of JSON text, each
 * one directory or store call's worth: the head (format, time, settings), the members a page at a time, the whole
 * change log a page at a time (newest first), the audit trail a page at a time (newest first, as its store keeps it:
 * the deletion removes it with the rest), then the contract data (src/contracts/services/archive.ts). No piece
 * holds more than a page, whatever the organization's number of members, changes or documents; the reader's place is
 * a plain value, so the background export (export-job.ts) keeps it between invocations and the streamed export reads
 * the same pieces in one request.
 */
import { type ArchivePlace, archiveStart, nextArchivePiece } from "../contracts/services/archive";
import { directoryStub } from "../directory/client";
import type { ChangeRecord } from "../directory/settings";
import { auditTrailIn, type TrailPosition } from "../audit/trail";
import type { Env } from "../env";

/** Members or changes per piece. */
const RECORDS_PER_PIECE = 1000;
/** Audit records per piece: the most one query of the audit store answers. */
const AUDIT_RECORDS_PER_PIECE = 500;

export interface ExportPlace {
  section: "head" | "members" | "changes" | "audit" | "contracts" | "done";
  /** The archive's opening text: its format, when it was taken and the organization's settings (no closing brace). */
  head: string;
  /** The last member given (by e-mail), the last change given (by sequence number, going back). */
  afterEmail: string | null;
  beforeSeq: number | null;
  /** The last audit record given (its store's keyset position, going back). */
  /** Where the audit section goes on: a position in a day's store, or (no day) in the organization's own store. */
  auditAfter: TrailPosition | null;
  /** Whether the current list has had an element, which the next one follows. */
  started: boolean;
  contracts: ArchivePlace;
}

/** The place before the archive's first piece, with its head (the organization as the operator's API shows it). */
export function exportStart(organization: unknown, now = new Date()): ExportPlace {
  const head = JSON.stringify({
    format: "arbiter-organization-export/1",
    exportedAt: now.toISOString(),
    organization,
  });
  return {
    section: "head",
    head: head.slice(0, -1),
    afterEmail: null,
    beforeSeq: null,
    auditAfter: null,
    started: false,
    contracts: archiveStart(),
  };
}

/** The next piece of the archive after `place`, and the place after it; null once the archive is whole. */
export async function nextExportPiece(
  env: Env,
  organizationId: string,
  place: ExportPlace,
): Promise<{ text: string; place: ExportPlace } | null> {
  switch (place.section) {
    case "head":
      return { text: `${place.head},"members":[`, place: { ...place, section: "members" } };
    case "members": {
      const page = await directoryStub(env).members(organizationId, RECORDS_PER_PIECE, place.afterEmail);
      const text = listText(page, place.started);
      if (page.length === RECORDS_PER_PIECE)
        return { text, place: { ...place, afterEmail: page.at(-1)?.email ?? null, started: true } };
      return { text: `${text}],"changes":[`, place: { ...place, section: "changes", started: false } };
    }
    case "changes": {
      // RPC types a stored `unknown` (before/after) as never; the values are the JSON the store parsed.
      const page = (await directoryStub(env).changes(
        organizationId,
        RECORDS_PER_PIECE,
        place.beforeSeq,
      )) as ChangeRecord[];
      const text = listText(page, place.started);
      if (page.length === RECORDS_PER_PIECE)
        return { text, place: { ...place, beforeSeq: page.at(-1)?.seq ?? null, started: true } };
      return { text: `${text}],"auditEvents":[`, place: { ...place, section: "audit", started: false } };
    }
    case "audit": {
      const after = place.auditAfter ?? undefined;
      const page = await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, {
        limit: AUDIT_RECORDS_PER_PIECE,
        ...(after ? { after } : {}),
      });
      const text = listText(page.events, place.started);
      if (page.next) return { text, place: { ...place, auditAfter: page.next, started: true } };
      return { text: `${text}],"contracts":`, place: { ...place, section: "contracts", started: false } };
    }
    case "contracts": {
      const piece = await nextArchivePiece(env, organizationId, place.contracts);
      if (piece === null) return { text: "}", place: { ...place, section: "done" } };
      return { text: piece.text, place: { ...place, contracts: piece.place } };
    }
    case "done":
      return null;
  }
}

/** A page of a list's elements as JSON text, after a comma when elements came before it. */
function listText(page: readonly unknown[], started: boolean): string {
  if (page.length === 0) return "";
  return `${started ? "," : ""}${page.map((item) => JSON.stringify(item)).join(",")}`;
}
