/**
 * How verdict-bearing REST routes answer in the format CI asks for: `?format=sarif` (or json, markdown, junit,
 * github) answers with that document alone; `?formats=sarif,junit` adds a `reports` member to the usual JSON
 * answer, so the CLI gets several formats from one upload. `?artifact=path/openapi.yaml` names the document's
 * path in the repository for SARIF locations.
 */
import { Failure } from "../core/failure";
import { lazyLocator, MAX_LOCATED_BYTES } from "../engine";
import { embeddedReports, FORMAT_MEDIA_TYPE, renderReport } from "../engine";
import { formatChoice, type FormatChoice } from "./format-choice";
import type { VerdictReport } from "../engine";
import { json } from "./contracts-http";

/** Read before any work is done, so a mistyped format refuses the request instead of storing an upload. */
export function requestedFormats(url: URL): { choice: Extract<FormatChoice, { ok: true }> } {
  const choice = formatChoice(url);
  if (!choice.ok)
    throw new Failure("invalid_input", `Invalid query parameters: ${choice.message}`, {}, "invalid_query");
  return { choice };
}

/**
 * The facts every rendered format shares: the file's repository path (?artifact=), the link to the verdict (the
 * console's verdict page, which signs a person in; a REST URL answers 401 in a browser), and, when the uploaded
 * bytes are at hand, where each violation sits in them.
 */
export function reportFacts(
  url: URL,
  project: string,
  verdictId: number | undefined,
  publicUrl: string,
  uploaded?: Uint8Array,
): Pick<VerdictReport, "artifactPath" | "link" | "locate"> {
  const artifact = url.searchParams.get("artifact");
  const base = publicUrl.replace(/\/+$/, "");
  return {
    ...(artifact ? { artifactPath: artifact.slice(0, 500) } : {}),
    ...(verdictId === undefined
      ? {}
      : { link: `${base}/admin/projects/${encodeURIComponent(project)}/verdicts/${verdictId}` }),
    ...(uploaded ? { locate: lazyLocator(uploaded) } : {}),
  };
}

/**
 * The uploaded bytes, kept for the locations only when a format that shows them was asked for and the file is
 * small enough to parse again; otherwise nothing is kept, so the upload path can free the bytes as before.
 */
export function bytesForLocations(
  choice: Extract<FormatChoice, { ok: true }>,
  bytes: Uint8Array | undefined,
): Uint8Array | undefined {
  const rendered = [...(choice.single ? [choice.single] : []), ...choice.embedded].some(
    (format) => format === "sarif" || format === "github" || format === "markdown",
  );
  return rendered && bytes && bytes.byteLength <= MAX_LOCATED_BYTES ? bytes : undefined;
}

export function verdictAnswer(
  choice: Extract<FormatChoice, { ok: true }>,
  body: Record<string, unknown>,
  report: VerdictReport,
  status = 200,
): Response {
  if (choice.single && choice.single !== "json") {
    return new Response(renderReport(choice.single, report), {
      status,
      headers: { "Content-Type": FORMAT_MEDIA_TYPE[choice.single], "Cache-Control": "no-store" },
    });
  }
  const reports = embeddedReports(choice.embedded, report);
  return json(reports ? { ...body, reports } : body, status);
}
