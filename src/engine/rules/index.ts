/**
 * The registry: every rule, in the order verdicts list them. Adding a rule is adding its file and one entry
 * here (and a test file under test/worker/engine/rules/). Frozen (the lists, every rule object, and the id
 * lookup) so nothing can add, reorder or alter rules at run time: verdicts depend on their ids and default severities.
 */
import { forbiddenPathPrefix } from "./forbidden-path-prefix";
import { maxPathDepth } from "./max-path-depth";
import { missingOperation } from "./missing-operation";
import { missingStatusCode } from "./missing-status-code";
import { operationIdPattern } from "./operation-id-pattern";
import { operationSecurity } from "./operation-security";
import { parameterAllowEmptyValue } from "./parameter-allow-empty-value";
import { parameterConstraint } from "./parameter-constraint";
import { parameterDefault } from "./parameter-default";
import { parameterMissing } from "./parameter-missing";
import { parameterNewRequired } from "./parameter-new-required";
import { parameterRequired } from "./parameter-required";
import { parameterSchema } from "./parameter-schema";
import { parameterStyle } from "./parameter-style";
import { propertyAccessMode } from "./property-access-mode";
import { requestBodyConstraint } from "./request-body-constraint";
import { requestBodyMediaType } from "./request-body-media-type";
import { requestBodyPropertyMissing } from "./request-body-property-missing";
import { requestBodyRequired } from "./request-body-required";
import { requestBodyRequiredProperty } from "./request-body-required-property";
import { requestBodySchema } from "./request-body-schema";
import { requestBodySchemaMissing } from "./request-body-schema-missing";
import { responseBodySchemaMissing } from "./response-body-schema-missing";
import { responseConstraint } from "./response-constraint";
import { responseEnum } from "./response-enum";
import { responseEnumUnconstrained } from "./response-enum-unconstrained";
import { responseHeaderMissing } from "./response-header-missing";
import { responseHeaderSchema } from "./response-header-schema";
import { responseMediaType } from "./response-media-type";
import { responseNullability } from "./response-nullability";
import { responseOptionalNullability } from "./response-optional-nullability";
import { responsePropertyOptional } from "./response-property-optional";
import { responseRequiredProperty } from "./response-required-property";
import { responseType } from "./response-type";
import { breakingChangeVersion } from "./breaking-change-version";
import type { ConformanceRule, ConstitutionRule, Rule } from "./rule";
import { schemaAdditionalProperties } from "./schema-additional-properties";
import { schemaAlternativeCovered } from "./schema-alternative-covered";
import { schemaAlternatives } from "./schema-alternatives";
import { schemaAlternativesUndecided } from "./schema-alternatives-undecided";
import { schemaFormat } from "./schema-format";
import { writeOperationProblemJson } from "./write-operation-problem-json";
import { securityRequirements } from "./security-requirements";
import { securitySchemeFlows } from "./security-scheme-flows";
import { securityScopesFewer } from "./security-scopes-fewer";
import { undocumentedOperation } from "./undocumented-operation";
import { undocumentedStatusCode } from "./undocumented-status-code";

/** Freezes each rule object (shallow: a rule's zod options schema is zod's own) and the list itself. */
function frozenRules<R extends Rule>(rules: R[]): readonly R[] {
  for (const rule of rules) Object.freeze(rule);
  return Object.freeze(rules);
}

/**
 * The rules by id, as a view with no set/delete/clear: a plain Map typed ReadonlyMap could still be changed by
 * any caller that casts it.
 */
class RuleLookup implements ReadonlyMap<string, Rule> {
  readonly #byId: Map<string, Rule>;
  constructor(rules: readonly Rule[]) {
    this.#byId = new Map(rules.map((rule) => [rule.id, rule]));
  }
  get size(): number {
    return this.#byId.size;
  }
  get(id: string): Rule | undefined {
    return this.#byId.get(id);
  }
  has(id: string): boolean {
    return this.#byId.has(id);
  }
  forEach(callback: (rule: Rule, id: string, map: ReadonlyMap<string, Rule>) => void, thisArg?: unknown): void {
    for (const [id, rule] of this.#byId) callback.call(thisArg, rule, id, this);
  }
  entries(): MapIterator<[string, Rule]> {
    return this.#byId.entries();
  }
  keys(): MapIterator<string> {
    return this.#byId.keys();
  }
  values(): MapIterator<Rule> {
    return this.#byId.values();
  }
  [Symbol.iterator](): MapIterator<[string, Rule]> {
    return this.#byId[Symbol.iterator]();
  }
}

export const conformanceRules: readonly ConformanceRule[] = frozenRules([
  missingOperation,
  undocumentedOperation,
  missingStatusCode,
  undocumentedStatusCode,
  parameterMissing,
  parameterNewRequired,
  parameterRequired,
  parameterSchema,
  parameterConstraint,
  parameterDefault,
  parameterStyle,
  parameterAllowEmptyValue,
  requestBodyMediaType,
  requestBodyRequired,
  requestBodyRequiredProperty,
  requestBodyPropertyMissing,
  requestBodySchema,
  requestBodySchemaMissing,
  requestBodyConstraint,
  responseMediaType,
  responseBodySchemaMissing,
  responseRequiredProperty,
  responsePropertyOptional,
  responseType,
  responseEnum,
  responseEnumUnconstrained,
  responseNullability,
  responseOptionalNullability,
  responseHeaderMissing,
  responseHeaderSchema,
  responseConstraint,
  schemaFormat,
  schemaAlternatives,
  schemaAlternativesUndecided,
  schemaAlternativeCovered,
  schemaAdditionalProperties,
  propertyAccessMode,
  securityRequirements,
  securityScopesFewer,
  securitySchemeFlows,
  // Last: it reads the errors every rule above reported.
  breakingChangeVersion,
]);

export const constitutionRules: readonly ConstitutionRule<unknown>[] = frozenRules([
  forbiddenPathPrefix,
  writeOperationProblemJson,
  operationSecurity,
  operationIdPattern,
  maxPathDepth,
] as ConstitutionRule<unknown>[]);

export const allRules: readonly Rule[] = Object.freeze([...conformanceRules, ...constitutionRules]);

export const rulesById: ReadonlyMap<string, Rule> = Object.freeze(new RuleLookup(allRules));
