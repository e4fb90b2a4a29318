/**
 * What every verdict format is fed: the verdict plus the facts that name what was checked. One shape for
 * snapshots, drafts, recorded traffic and contract changes, so each format is written once.
 */
import type { ViolationLocator } from "./source-positions";
import type { Verdict } from "../types";

export type ReportSubject = "snapshot" | "draft" | "exchanges" | "contract" | "contract-change";

export interface VerdictReport {
  subject: ReportSubject;
  project: string;
  /** e.g. "v3 (2026-q4)": the contract version the verdict was measured against. */
  contractVersion?: string;
  /** Human description of what was checked, e.g. "snapshot #4 (commit abc123)". */
  title: string;
  verdict: Verdict;
  /** Where the full verdict can be read (the console or the REST route), when there is such a place. */
  link?: string;
  /**
   * Repository path of the document the findings are about (SARIF needs a file to attach results to:
   * GitHub code scanning drops results without one). Default "openapi.json".
   */
  artifactPath?: string;
  /** The line and column of a violation in the uploaded file, when the file is at hand (uploads, drafts). */
  locate?: ViolationLocator;
}

/** The word a report uses for what was compared with the contract. */
export function subjectNoun(subject: ReportSubject): string {
  switch (subject) {
    case "snapshot":
      return "the implementation snapshot";
    case "draft":
      return "the draft";
    case "exchanges":
      return "the recorded traffic";
    case "contract":
      return "the contract";
    case "contract-change":
      return "the new contract version";
  }
}
