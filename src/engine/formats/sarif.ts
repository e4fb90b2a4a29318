/**
 * A verdict as SARIF 2.1.0, the format GitHub code scanning imports: one result per violation, rule metadata
 * (id, purpose, link, default level) from the rule registry, and each result located twice: logically, by the
 * operation and JSON pointer the violation names, and physically, in the document's file, because code
 * scanning refuses results without a file. https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
 */
import { sarifText } from "../../lib/escape/sarif";
import { catalogEntry, canonicalRuleId } from "../rules/rule-registry";
import { rulesById } from "../rules";
import type { ViolationLocator } from "./source-positions";
import { describeAcceptance } from "../verdict/acceptance";
import type { Severity, Violation } from "../types";
import { subjectNoun, type VerdictReport } from "./report";

export const SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";
/** An accepted break keeps its rule's level (error) and carries a suppression saying who accepted it and why. */
const LEVEL: Record<Severity, "error" | "warning" | "note"> = {
  error: "error",
  warning: "warning",
  info: "note",
  accepted: "error",
};

interface ReportingDescriptor {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  helpUri?: string;
  help: { text: string };
  defaultConfiguration: { level: "error" | "warning" | "note" };
}

/** "create-order" -> "CreateOrder": SARIF's rule `name` is an identifier-like label. */
function pascalName(id: string): string {
  return id.replace(/(^|[^a-zA-Z0-9]+)([a-zA-Z0-9])/g, (_all, _sep, letter: string) => letter.toUpperCase());
}

/** `enforces` is a link, sometimes followed by the category it names: SARIF wants the bare URI. */
function helpUriOf(enforces: string): { helpUri?: string } {
  const first = enforces.split(/\s+/)[0] ?? "";
  try {
    return new URL(first).protocol === "https:" ? { helpUri: first } : {};
  } catch {
    return {};
  }
}

function descriptorOf(ruleId: string, observed: Severity, subject: VerdictReport["subject"]): ReportingDescriptor {
  // A finding of recorded traffic is described by its traffic entry in the registry (an id shared with a verdict
  // rule, such as undocumented-status-code, names the same problem found in traffic); an earlier id resolves.
  const exchangeRule = subject === "exchanges" ? catalogEntry("traffic", ruleId) : undefined;
  const rule = exchangeRule ? undefined : rulesById.get(canonicalRuleId(ruleId));
  if (exchangeRule) {
    return {
      id: exchangeRule.id,
      name: pascalName(exchangeRule.id),
      shortDescription: { text: exchangeRule.purpose },
      fullDescription: { text: `${exchangeRule.purpose} (recorded-traffic check, severity ${exchangeRule.severity}).` },
      help: { text: `${exchangeRule.purpose} See Arbiter's docs/validation.md, "Recorded traffic".` },
      defaultConfiguration: { level: LEVEL[exchangeRule.severity] },
    };
  }
  if (!rule) {
    return {
      id: ruleId,
      name: pascalName(ruleId),
      shortDescription: { text: ruleId },
      fullDescription: { text: `Arbiter check ${ruleId}.` },
      help: { text: `See Arbiter's docs/rules.md for ${ruleId}.` },
      defaultConfiguration: { level: LEVEL[observed] },
    };
  }
  return {
    id: rule.id,
    name: pascalName(rule.id),
    shortDescription: { text: rule.purpose },
    fullDescription: { text: `${rule.purpose} (${rule.kind} rule, default severity ${rule.defaultSeverity}).` },
    ...helpUriOf(rule.enforces),
    help: { text: `${rule.purpose} What it enforces: ${rule.enforces}` },
    defaultConfiguration: { level: LEVEL[rule.defaultSeverity] },
  };
}

/** "GET /orders/{id}#/responses/200" -> operation "GET /orders/{id}", pointer "/responses/200". */
function splitLocation(location: string): { operation: string | null; pointer: string } {
  const hash = location.indexOf("#");
  const head = hash < 0 ? location : location.slice(0, hash);
  const pointer = hash < 0 ? "" : location.slice(hash + 1);
  return /^[A-Z]+ \//.test(head)
    ? { operation: head, pointer }
    : { operation: null, pointer: hash < 0 ? location : pointer };
}

function resultOf(violation: Violation, ruleIndex: number, artifactPath: string, locate: ViolationLocator | undefined) {
  const { operation, pointer } = splitLocation(violation.location);
  const region = locate?.(violation.location) ?? { startLine: 1 };
  return {
    ruleId: violation.rule,
    ruleIndex,
    level: LEVEL[violation.severity],
    message: { text: sarifText(violation.message) },
    locations: [
      {
        physicalLocation: { artifactLocation: { uri: artifactPath }, region },
        logicalLocations: [
          {
            name: pointer || operation || violation.location,
            fullyQualifiedName: violation.location,
            kind: operation ? (pointer ? "member" : "function") : "object",
          },
        ],
      },
    ],
    partialFingerprints: {
      "arbiterLocation/v1": `${violation.rule}|${violation.location}`,
      ...(violation.fingerprint ? { "arbiterBreak/v1": violation.fingerprint } : {}),
    },
    ...(violation.acceptance
      ? {
          suppressions: [
            {
              kind: "external",
              status: "accepted",
              justification: sarifText(describeAcceptance(violation.acceptance)),
            },
          ],
        }
      : {}),
    properties: {
      ...(operation ? { operation } : {}),
      pointer,
      ...(violation.usage ? { usage: violation.usage } : {}),
    },
  };
}

/** Artifact paths are relative URI references into the repository: no scheme, no leading slash, no dot segments. */
export function artifactUri(path: string | undefined): string {
  const clean = (path ?? "")
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/^\/+/, "");
  if (
    !clean ||
    clean.split("/").some((segment) => segment === ".." || segment === ".") ||
    /^[a-z][a-z0-9+.-]*:/i.test(clean)
  )
    return "openapi.json";
  return clean
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
}

export function renderSarif(report: VerdictReport): Record<string, unknown> {
  const ruleIds: string[] = [];
  const indexOf = new Map<string, number>();
  const observed = new Map<string, Severity>();
  // A verdict stored before a rule was renamed names its earlier id: results and rules use the current one.
  const violations = report.verdict.violations.map((violation) => ({
    ...violation,
    rule: canonicalRuleId(violation.rule),
  }));
  for (const violation of violations) {
    if (!indexOf.has(violation.rule)) {
      indexOf.set(violation.rule, ruleIds.length);
      ruleIds.push(violation.rule);
      observed.set(violation.rule, violation.severity);
    }
  }
  const artifactPath = artifactUri(report.artifactPath);
  return {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "Arbiter",
            rules: ruleIds.map((id) => descriptorOf(id, observed.get(id) ?? "error", report.subject)),
          },
        },
        automationDetails: { id: `arbiter/${report.project}/${report.subject}/` },
        artifacts: [
          {
            location: { uri: artifactPath },
            description: { text: `${subjectNoun(report.subject)} of project ${report.project}` },
          },
        ],
        results: violations.map((violation) =>
          resultOf(violation, indexOf.get(violation.rule) ?? 0, artifactPath, report.locate),
        ),
        properties: {
          project: report.project,
          subject: report.subject,
          title: report.title,
          approved: report.verdict.approved,
          ...(report.contractVersion ? { contractVersion: report.contractVersion } : {}),
          ...(report.link ? { verdictUrl: report.link } : {}),
        },
      },
    ],
  };
}
