/**
 * Where each finding sits, so a reader can find the rules about one part of an API: its direction (what a client
 * sends, what it receives, both, or the document as a whole) and its area. docs/rules.md shows both beside each rule
 * (test/node/rule-table.test.ts); a rule without an entry here fails the registry at load.
 */
export type RuleDirection = "request" | "response" | "both" | "document";
export type RuleArea =
  | "operations"
  | "status codes"
  | "parameters"
  | "bodies"
  | "schemas"
  | "headers"
  | "security"
  | "versions"
  | "limits";

export interface RuleTaxonomy {
  readonly direction: RuleDirection;
  readonly area: RuleArea;
}

const t = (direction: RuleDirection, area: RuleArea): RuleTaxonomy => Object.freeze({ direction, area });

/** By id: one problem has one id in every family (rule-registry.ts), and one place. */
const TAXONOMY: Readonly<Record<string, RuleTaxonomy>> = Object.freeze({
  "missing-operation": t("both", "operations"),
  "undocumented-operation": t("both", "operations"),
  "forbidden-path-prefix": t("document", "operations"),
  "operation-id-pattern": t("document", "operations"),
  "max-path-depth": t("document", "operations"),
  "missing-status-code": t("response", "status codes"),
  "undocumented-status-code": t("response", "status codes"),
  "parameter-missing": t("request", "parameters"),
  "parameter-new-required": t("request", "parameters"),
  "parameter-required": t("request", "parameters"),
  "parameter-schema": t("request", "parameters"),
  "parameter-constraint": t("request", "parameters"),
  "parameter-default": t("request", "parameters"),
  "parameter-style": t("request", "parameters"),
  "parameter-allow-empty-value": t("request", "parameters"),
  "request-body-media-type": t("request", "bodies"),
  "request-body-required": t("request", "bodies"),
  "request-body-required-property": t("request", "bodies"),
  "request-body-property-missing": t("request", "bodies"),
  "request-body-schema": t("request", "bodies"),
  "request-body-schema-missing": t("request", "bodies"),
  "request-body-constraint": t("request", "bodies"),
  "request-invalid": t("request", "bodies"),
  "response-media-type": t("response", "bodies"),
  "response-body-schema-missing": t("response", "bodies"),
  "write-operation-problem-json": t("response", "bodies"),
  "response-invalid": t("response", "bodies"),
  "payload-missing": t("response", "bodies"),
  "undocumented-media-type": t("both", "bodies"),
  "response-required-property": t("response", "schemas"),
  "response-property-optional": t("response", "schemas"),
  "response-type": t("response", "schemas"),
  "response-enum": t("response", "schemas"),
  "response-enum-unconstrained": t("response", "schemas"),
  "response-nullability": t("response", "schemas"),
  "response-optional-nullability": t("response", "schemas"),
  "response-constraint": t("response", "schemas"),
  "missing-schema": t("response", "schemas"),
  "schema-format": t("both", "schemas"),
  "schema-alternatives": t("both", "schemas"),
  "schema-alternatives-undecided": t("both", "schemas"),
  "schema-alternative-covered": t("both", "schemas"),
  "schema-additional-properties": t("both", "schemas"),
  "property-access-mode": t("both", "schemas"),
  "schema-unusable": t("document", "schemas"),
  "response-header-missing": t("response", "headers"),
  "response-header-schema": t("response", "headers"),
  "security-requirements": t("request", "security"),
  "security-scopes-fewer": t("request", "security"),
  "security-scheme-flows": t("request", "security"),
  "operation-security": t("request", "security"),
  "breaking-change-version": t("document", "versions"),
  "work-budget-exhausted": t("document", "limits"),
  "payload-too-deep": t("response", "limits"),
});

/** The direction and area of the finding `id`; throws for an id without one (a rule added without its place). */
export function ruleTaxonomy(id: string): RuleTaxonomy {
  const found = Object.hasOwn(TAXONOMY, id) ? TAXONOMY[id] : undefined;
  if (!found) throw new Error(`rule "${id}" has no direction and area in src/engine/rules/taxonomy.ts`);
  return found;
}
