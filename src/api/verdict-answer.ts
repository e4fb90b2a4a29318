/**
 * How verdict-bearing REST routes answer in the format CI asks for: `?format=sarif` (or json, markdown, junit,
 * github) answers with that document alone; `?formats=sarif,junit` adds a `reports` member to the usual JSON
 * answer, so the CLI gets several formats from one upload. `?artifact=path/openapi.yaml` names the document's
 * path in the repository for SARIF locations.
 */
import { Failure } from "../core/failure";
import { embeddedReports, FORMAT_MEDIA_TYPE, formatChoice, renderReport, type FormatChoice } from "../engine/formats";
import { type VerdictReport } from "../engine/formats/report";
import { json } from "./contracts-http";

/** Read before any work is done, so a mistyped format refuses the request instead of storing an upload. */
export function requestedFormats(url: URL): { choice: Extract<FormatChoice, { ok: true }> } {
  const choice = formatChoice(url);
  if (!choice.ok) throw new Failure("invalid_input", `Invalid query parameters: ${choice.message}`, {}, "invalid_query");
  return { choice };
}

/** Facts every report of a request shares: the SARIF artifact path and where the verdict can be read again. */
export function reportFacts(url: URL, project: string, verdictId: number | undefined, publicUrl: string): Pick<VerdictReport, "artifactPath" | "link"> {
  const artifact = url.searchParams.get("artifact");
  const base = publicUrl.replace(/\/+$/, "");
  return {
    ...(artifact ? { artifactPath: artifact.slice(0, 500) } : {}),
    ...(verdictId === undefined ? {} : { link: `${base}/api/v1/projects/${encodeURIComponent(project)}/verdicts/${verdictId}` }),
  };
}

export function verdictAnswer(choice: Extract<FormatChoice, { ok: true }>, body: Record<string, unknown>, report: VerdictReport, status = 200): Response {
  if (choice.single && choice.single !== "json") {
    return new Response(renderReport(choice.single, report), { status, headers: { "Content-Type": FORMAT_MEDIA_TYPE[choice.single], "Cache-Control": "no-store" } });
  }
  const reports = embeddedReports(choice.embedded, report);
  return json(reports ? { ...body, reports } : body, status);
}
