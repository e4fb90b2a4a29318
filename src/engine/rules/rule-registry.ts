/**
 * The one rule registry: every finding Arbiter reports, one entry each, whichever check finds it: the verdict rules
 * (one file each, registered in index.ts and listed here from it), the recorded-traffic findings
 * (exchanges/validate.ts) and the payload findings (payload.ts). The rule table in docs/rules.md is this list
 * (test/node/rule-table.test.ts), and SARIF's rule help reads it.
 *
 * One naming scheme: an id names the problem, not the check that found it, in lowercase words joined by "-" and
 * without a family prefix, so one problem has one id in every family: a status code the contract does not declare
 * is `undocumented-status-code` in a snapshot's verdict, in recorded traffic and for a payload. An id renamed to
 * follow the scheme keeps its old id as an alias: verdicts stored before, and anything that names the old id, still
 * resolve (canonicalRuleId).
 */
import type { RuleSeverity } from "../types";
import { allRules } from "./index";
import { type RuleTaxonomy, ruleTaxonomy } from "./taxonomy";

/** Which check reports the finding: verdict rules are conformance or constitution rules (rule.ts). */
export type RuleFamily = "conformance" | "constitution" | "traffic" | "payload";

export interface CatalogEntry {
  readonly id: string;
  readonly family: RuleFamily;
  readonly severity: RuleSeverity;
  readonly purpose: string;
  /** Earlier ids of the same finding, still accepted where stored data or a caller names them. */
  readonly aliases?: readonly string[];
}

function frozen<E extends CatalogEntry>(entries: E[]): readonly E[] {
  for (const entry of entries) Object.freeze(entry);
  return Object.freeze(entries);
}

/** Recorded-traffic findings, in report order (a run's summary lists them in this order). */
export const TRAFFIC_RULES: readonly CatalogEntry[] = frozen([
  {
    id: "undocumented-operation",
    family: "traffic",
    severity: "error",
    purpose: "The exchange's method and path match no operation of the contract.",
  },
  {
    id: "request-invalid",
    family: "traffic",
    severity: "error",
    purpose:
      "The request breaks the operation's contract: a required path, query or header parameter is missing, a parameter value or the body does not match its schema (readOnly properties must not be sent), or a required body is missing.",
    aliases: ["exchange-request-invalid"],
  },
  {
    id: "undocumented-status-code",
    family: "traffic",
    severity: "error",
    purpose:
      "The response status is not declared for the operation (neither the code, its range such as 4XX, nor default).",
    aliases: ["exchange-status-undocumented"],
  },
  {
    id: "response-header-missing",
    family: "traffic",
    severity: "error",
    purpose: "A response header the contract marks as required is absent.",
    aliases: ["exchange-header-missing"],
  },
  {
    id: "undocumented-media-type",
    family: "traffic",
    severity: "error",
    purpose:
      "A request or response body has a content type the contract does not declare there (or the contract declares no body there).",
    aliases: ["exchange-content-type-undocumented"],
  },
  {
    id: "response-invalid",
    family: "traffic",
    severity: "error",
    purpose:
      "The response body or a response header does not match the contract's schema (writeOnly properties must not appear).",
    aliases: ["exchange-response-invalid"],
  },
  {
    id: "schema-unusable",
    family: "traffic",
    severity: "warning",
    purpose:
      "The contract's schema for this part cannot be used for validation (an unresolvable $ref or an invalid pattern), so the part was not checked.",
    aliases: ["exchange-schema-unusable"],
  },
  {
    id: "work-budget-exhausted",
    family: "traffic",
    severity: "warning",
    purpose:
      "Validating this part needs more work than one value may take (docs/security.md), so it was not checked; the rest of the upload was.",
  },
]);

/** Why a response payload could not be validated (its schema errors are reported by keyword, not by rule). */
export const PAYLOAD_RULES: readonly CatalogEntry[] = frozen([
  {
    id: "undocumented-operation",
    family: "payload",
    severity: "error",
    purpose: "The contract has no operation for the payload's method and path.",
    aliases: ["unknown-operation"],
  },
  {
    id: "undocumented-status-code",
    family: "payload",
    severity: "error",
    purpose: "The contract declares no response for the payload's status (nor its range such as 4XX, nor default).",
    aliases: ["undocumented-status"],
  },
  {
    id: "missing-schema",
    family: "payload",
    severity: "error",
    purpose: "The contract declares no JSON schema for that response, or none for the given content type.",
  },
  { id: "payload-missing", family: "payload", severity: "error", purpose: "No payload was given." },
  {
    id: "payload-too-deep",
    family: "payload",
    severity: "error",
    purpose: "The payload nests too deep to be validated.",
  },
  {
    id: "schema-unusable",
    family: "payload",
    severity: "error",
    purpose:
      "The contract's schema for the response cannot be used for validation (an unresolvable $ref or an invalid pattern).",
  },
  {
    id: "work-budget-exhausted",
    family: "payload",
    severity: "error",
    purpose:
      "Validating the payload needs more work than one value may take (docs/security.md), so it cannot be verified.",
  },
]);

/** Every finding of every family: the verdict rules in registry order, then traffic, then payload. */
export const RULE_CATALOG: readonly (CatalogEntry & RuleTaxonomy)[] = frozen(
  [
    ...allRules.map((rule) => ({
      id: rule.id,
      family: rule.kind,
      severity: rule.defaultSeverity,
      purpose: rule.purpose,
    })),
    ...TRAFFIC_RULES,
    ...PAYLOAD_RULES,
  ].map((entry) => ({ ...entry, ...ruleTaxonomy(entry.id) })),
);

const canonical = new Map<string, string>(
  RULE_CATALOG.flatMap((entry) => (entry.aliases ?? []).map((alias) => [alias, entry.id] as [string, string])),
);

/** The id a finding has today, for an id that may be an earlier one (an alias). */
export function canonicalRuleId(id: string): string {
  return canonical.get(id) ?? id;
}

/** The entry of `id` (or of the id an alias now names) in `family`, if there is one. */
export function catalogEntry(family: RuleFamily, id: string): CatalogEntry | undefined {
  const wanted = canonicalRuleId(id);
  return RULE_CATALOG.find((entry) => entry.family === family && entry.id === wanted);
}
