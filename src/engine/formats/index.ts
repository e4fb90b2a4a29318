/**
 * The verdict formats CI systems read, one module each, fed the same VerdictReport. REST routes answer
 * `?format=<one>` with the rendered document itself, or embed several with `?formats=a,b` in the JSON answer;
 * the CLI writes them to files (--format, --out-<format>).
 */
import { renderVerdictMarkdown } from "./markdown";
import { renderGithubActions } from "./github-actions";
import { renderJunit } from "./junit";
import type { VerdictReport } from "./report";
import { renderSarif } from "./sarif";

export const VERDICT_FORMATS = ["json", "markdown", "junit", "sarif", "github"] as const;
export type VerdictFormat = (typeof VERDICT_FORMATS)[number];

export const FORMAT_MEDIA_TYPE: Record<VerdictFormat, string> = {
  json: "application/json; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  junit: "application/xml; charset=utf-8",
  sarif: "application/sarif+json; charset=utf-8",
  github: "text/plain; charset=utf-8",
};

export function isVerdictFormat(value: string): value is VerdictFormat {
  return (VERDICT_FORMATS as readonly string[]).includes(value);
}

/** The rendered text of one format. JSON is the verdict itself (the REST answer's `verdict` member). */
export function renderReport(format: VerdictFormat, report: VerdictReport): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(report.verdict, null, 2)}\n`;
    case "markdown":
      return renderVerdictMarkdown(report.verdict, {
        project: report.project,
        subject: report.subject,
        ...(report.contractVersion ? { contractVersion: report.contractVersion } : {}),
        title: report.title,
        ...(report.link ? { link: report.link } : {}),
        ...(report.locate
          ? { locate: report.locate, ...(report.artifactPath ? { artifactPath: report.artifactPath } : {}) }
          : {}),
      });
    case "junit":
      return renderJunit(report);
    case "sarif":
      return `${JSON.stringify(renderSarif(report), null, 2)}\n`;
    case "github":
      return renderGithubActions(report);
  }
}

/** The `reports` member of a JSON answer: each requested format, SARIF as an object, the others as text. */
export function embeddedReports(
  formats: readonly VerdictFormat[],
  report: VerdictReport,
): Record<string, unknown> | undefined {
  if (formats.length === 0) return undefined;
  const reports: Record<string, unknown> = {};
  for (const format of formats)
    reports[format] =
      format === "sarif" ? renderSarif(report) : format === "json" ? report.verdict : renderReport(format, report);
  return reports;
}
