/**
 * The findings of recorded-traffic validation, one id each, in report order. The README's "Recorded traffic"
 * table and the SARIF rule metadata read this catalogue, so the ids, severities and purposes live in one place.
 */
import type { Severity } from "../types";

export interface ExchangeRule {
  id: string;
  severity: Severity;
  purpose: string;
}

export const EXCHANGE_RULES: readonly ExchangeRule[] = Object.freeze([
  { id: "undocumented-operation", severity: "error", purpose: "The exchange's method and path match no operation of the contract." },
  { id: "exchange-request-invalid", severity: "error", purpose: "The request breaks the operation's contract: a required path, query or header parameter is missing, a parameter value or the body does not match its schema (readOnly properties must not be sent), or a required body is missing." },
  { id: "exchange-status-undocumented", severity: "error", purpose: "The response status is not declared for the operation (neither the code, its range such as 4XX, nor default)." },
  { id: "exchange-header-missing", severity: "error", purpose: "A response header the contract marks as required is absent." },
  { id: "exchange-content-type-undocumented", severity: "error", purpose: "A request or response body has a content type the contract does not declare there (or the contract declares no body there)." },
  { id: "exchange-response-invalid", severity: "error", purpose: "The response body or a response header does not match the contract's schema (writeOnly properties must not appear)." },
  { id: "exchange-schema-unusable", severity: "warning", purpose: "The contract's schema for this part cannot be used for validation (an unresolvable $ref or an invalid pattern), so the part was not checked." },
]);

export const EXCHANGE_RULE_IDS: readonly string[] = EXCHANGE_RULES.map((rule) => rule.id);

const severities = new Map(EXCHANGE_RULES.map((rule) => [rule.id, rule.severity]));

export function exchangeRuleSeverity(id: string): Severity {
  return severities.get(id) ?? "error";
}
