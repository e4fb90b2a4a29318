/**
 * The registry: every rule, in the order verdicts list them. Adding a rule is adding its file and one entry
 * here (and a test file under test/worker/contracts/rules/). Frozen so nothing can add or reorder rules at run time.
 */
import { forbiddenPathPrefix } from "./forbidden-path-prefix";
import { maxPathDepth } from "./max-path-depth";
import { missingOperation } from "./missing-operation";
import { missingStatusCode } from "./missing-status-code";
import { operationIdPattern } from "./operation-id-pattern";
import { operationSecurity } from "./operation-security";
import { parameterMissing } from "./parameter-missing";
import { parameterNewRequired } from "./parameter-new-required";
import { parameterRequired } from "./parameter-required";
import { parameterSchema } from "./parameter-schema";
import { requestBodyMediaType } from "./request-body-media-type";
import { requestBodyPropertyMissing } from "./request-body-property-missing";
import { requestBodyRequired } from "./request-body-required";
import { requestBodyRequiredProperty } from "./request-body-required-property";
import { requestBodySchema } from "./request-body-schema";
import { responseEnum } from "./response-enum";
import { responseMediaType } from "./response-media-type";
import { responseNullability } from "./response-nullability";
import { responseOptionalNullability } from "./response-optional-nullability";
import { responsePropertyOptional } from "./response-property-optional";
import { responseRequiredProperty } from "./response-required-property";
import { responseType } from "./response-type";
import type { ConformanceRule, ConstitutionRule, Rule } from "./rule";
import { schemaFormat } from "./schema-format";
import { writeOperationProblemJson } from "./write-operation-problem-json";
import { securityRequirements } from "./security-requirements";
import { undocumentedOperation } from "./undocumented-operation";
import { undocumentedStatusCode } from "./undocumented-status-code";

export const conformanceRules: readonly ConformanceRule[] = Object.freeze([
  missingOperation,
  undocumentedOperation,
  missingStatusCode,
  undocumentedStatusCode,
  parameterMissing,
  parameterNewRequired,
  parameterRequired,
  parameterSchema,
  requestBodyMediaType,
  requestBodyRequired,
  requestBodyRequiredProperty,
  requestBodyPropertyMissing,
  requestBodySchema,
  responseMediaType,
  responseRequiredProperty,
  responsePropertyOptional,
  responseType,
  responseEnum,
  responseNullability,
  responseOptionalNullability,
  schemaFormat,
  securityRequirements,
]);

export const constitutionRules: readonly ConstitutionRule<unknown>[] = Object.freeze([
  forbiddenPathPrefix,
  writeOperationProblemJson,
  operationSecurity,
  operationIdPattern,
  maxPathDepth,
] as ConstitutionRule<unknown>[]);

export const allRules: readonly Rule[] = Object.freeze([...conformanceRules, ...constitutionRules]);

export const rulesById: ReadonlyMap<string, Rule> = new Map(allRules.map((rule) => [rule.id, rule]));
