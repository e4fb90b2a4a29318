/**
 * Console downloads: a stored contract or snapshot document as it was uploaded, and a verdict in one of the
 * CI formats. Served under /admin (administrators of the session's organization only) because the console
 * session is a browser cookie, not a bearer token the REST document routes accept.
 */
import { renderReport, FORMAT_MEDIA_TYPE, type VerdictFormat } from "../../engine";
import { findContract } from "../../contracts/services/contract-versions";
import { findSnapshot } from "../../contracts/services/snapshots";
import { documentStream } from "../../contracts/services/stored-content";
import type { ConsoleContext } from "./context";
import { notFound } from "./components";
import { loadVerdict } from "./verdict.page";

const EXTENSION: Record<VerdictFormat, string> = {
  json: "json",
  markdown: "md",
  junit: "xml",
  sarif: "sarif",
  github: "txt",
};

function attachmentHeaders(contentType: string, filename: string, extra: Record<string, string> = {}): Headers {
  return new Headers({
    "Content-Type": contentType,
    // The name is built from a validated project name and numbers only.
    "Content-Disposition": `attachment; filename="${filename}"`,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    ...extra,
  });
}

async function documentDownload(
  context: ConsoleContext,
  stored: { project: string; contentHash: string; format: string },
  name: string,
): Promise<Response> {
  const content = await documentStream(context, stored.project, stored.contentHash);
  if (!content) return notFound("The stored document cannot be found.");
  const yaml = stored.format === "yaml";
  return new Response(content.body, {
    headers: attachmentHeaders(
      yaml ? "application/yaml; charset=utf-8" : "application/json; charset=utf-8",
      `${name}.${yaml ? "yaml" : "json"}`,
      { "Content-Length": String(content.size) },
    ),
  });
}

export async function contractDocumentDownload(
  context: ConsoleContext,
  project: string,
  version: number,
): Promise<Response> {
  const contract = await findContract(context, project, version);
  if (!contract) return notFound(`Project "${project}" has no contract version ${version}.`);
  return documentDownload(context, contract, `${project}-contract-v${version}`);
}

export async function snapshotDocumentDownload(
  context: ConsoleContext,
  project: string,
  id: number,
): Promise<Response> {
  const snapshot = await findSnapshot(context, project, id);
  if (!snapshot) return notFound(`Project "${project}" has no snapshot with id ${id}.`);
  return documentDownload(context, snapshot, `${project}-snapshot-${snapshot.number}-id${snapshot.id}`);
}

export async function verdictReportDownload(
  context: ConsoleContext,
  project: string,
  id: number,
  format: VerdictFormat,
): Promise<Response> {
  const loaded = await loadVerdict(context, project, id);
  if ("response" in loaded) return loaded.response;
  return new Response(renderReport(format, loaded.report), {
    headers: attachmentHeaders(FORMAT_MEDIA_TYPE[format], `${project}-verdict-${id}.${EXTENSION[format]}`),
  });
}
