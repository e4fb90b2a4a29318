/**
 * The policies://access document: generated from the loaded policy for the reading principal's
 * organization, so it is always what the server enforces: scopes per tool, quotas, masked fields, timeouts,
 * limits, input rules and the fields of the audit record.
 */
import type { AuditRecord } from "../audit/record";
import type { Env } from "../env";
import type { Principal } from "../core/principal";
import { getRateLimitPolicy, quotaFor, withOrganizationQuotas, type OrganizationQuotas } from "../ratelimit/policy";
import { GRAPHQL_POLICY_FILES, type GraphqlCatalog } from "./operation-allowlist";
import { formatSeconds } from "./gateway";
import { maskingLevel, sensitiveFieldsIn } from "./masking";
import { resolveUpstream, type OrganizationUpstream } from "./upstream";

/** Every audit field, described. Typed against AuditRecord so a new field cannot be forgotten here. */
export const AUDIT_FIELDS: Readonly<Record<keyof AuditRecord, string>> = {
  correlationId: "Id shared by the tool result (_meta.correlationId), the logs and this record",
  time: "When the call started (ISO 8601)",
  organizationId: "The caller's organization",
  userId: "The signed-in user",
  clientId: "The OAuth client (or CI key)",
  kind: "tool, route or oauth",
  target: "Tool name (or route / OAuth event)",
  argumentsDigest: "sha256 of the canonical JSON of the arguments: never the arguments themselves",
  durationMs: "How long the call took",
  outcome: "ok, invalid-input, rejected-by-policy, rate-limited, upstream-error, timeout or error",
  reason: "Short safe reason for a refusal or failure: never a token, secret, payload or masked value",
};

function upstreamSource(
  catalog: GraphqlCatalog,
  principal: Principal,
  env: Env,
  fromDirectory: OrganizationUpstream | undefined,
): string {
  try {
    const kind = resolveUpstream(catalog, principal.organizationId, env, undefined, fromDirectory).kind;
    return kind === "demo"
      ? "embedded demo upstream (demo data)"
      : kind === "service"
        ? "the organization's orders API (service binding)"
        : "the organization's orders API (HTTPS)";
  } catch {
    return "misconfigured: calls fail until the operator fixes it";
  }
}

/** What the organization set at runtime (src/directory/): its upstream, quotas and extra masked fields. */
export interface OrganizationOverrides {
  upstream?: OrganizationUpstream;
  quotas?: OrganizationQuotas;
  extraMasking?: Readonly<Record<string, string>>;
}

export function accessPolicyDocument(
  catalog: GraphqlCatalog,
  principal: Principal,
  env: Env,
  overrides: OrganizationOverrides = {},
) {
  const rateLimits = withOrganizationQuotas(getRateLimitPolicy(), principal.organizationId, overrides.quotas);
  const held = new Set(principal.scopes);
  const rules = {
    mask: catalog.masking.mask,
    sensitive: new Map([...Object.entries(overrides.extraMasking ?? {}), ...catalog.masking.sensitive]),
  };
  const unmasked = maskingLevel(principal.scopes, catalog.masking);
  return {
    about:
      "Generated from the policy this server enforces (policies/graphql/*, policies/data-policy.json, policies/rate-limits.json). Only the operations listed here ever reach the orders API; user input travels only as GraphQL variables.",
    organization: principal.organizationId,
    dataSource: upstreamSource(catalog, principal, env, overrides.upstream),
    tools: catalog.operations
      .filter((operation) => operation.enabled)
      .map((operation) => ({
        tool: operation.tool,
        title: operation.title,
        operation: operation.name,
        kind: operation.kind,
        requiredScopes: [...operation.scopes],
        youMayCall: operation.scopes.every((scope) => held.has(scope)),
        quota: quotaFor(rateLimits, principal.organizationId, operation.tool),
        timeout: `${formatSeconds(operation.timeoutMs)} s`,
        responseCacheSeconds: operation.cacheTtlSeconds,
        estimatedCost: operation.estimatedCost,
        annotations: operation.annotations,
        sensitiveFields: sensitiveFieldsIn(operation.selection, rules).map((field) => field.coordinate),
      })),
    disabledOperations: catalog.operations
      .filter((operation) => !operation.enabled)
      .map((operation) => ({
        operation: operation.name,
        tool: operation.tool,
        kind: operation.kind,
        requiredScopes: [...operation.scopes],
        reason: `disabled in policies/${operation.policyFile}`,
      })),
    maskedFields: Object.entries(catalog.dataPolicy.sensitiveFields).map(([field, rule]) => ({
      field,
      reason: rule.reason,
      unmaskScope: rule.unmaskScope,
      maskedAs: catalog.dataPolicy.mask,
      maskedForYou: !unmasked.includes(rule.unmaskScope),
    })),
    limits: {
      ...catalog.gateway.limits,
      defaultTimeout: `${formatSeconds(catalog.gateway.defaultTimeoutMs)} s`,
      maxResponseBytes: catalog.gateway.maxResponseBytes,
      file: `policies/${GRAPHQL_POLICY_FILES.gateway}`,
    },
    inputRules: {
      enumSynonyms: catalog.inputs.enumSynonyms,
      patterns: Object.fromEntries(
        Object.entries(catalog.inputs.patterns).map(([name, p]) => [
          name,
          { regex: p.regex, description: p.description, example: p.example },
        ]),
      ),
    },
    audit: {
      what: "One audit record per tool call, whatever the outcome. It never holds a token, a secret, the arguments or any result.",
      fields: AUDIT_FIELDS,
    },
  };
}
