/**
 * One governed execution of an allowlisted operation, shared by the MCP tools, the /chat demo and the
 * examples resource: resolve the organization's upstream -> (cache) -> gateway -> data policy (masking, the
 * one place) -> output check -> (cache). What comes out is safe to show to this principal.
 */
import { GatewayFailure } from "./errors";
import type { Caller, WorkerEnv } from "./types";
import { describeZodIssuesForUpstream } from "./output-check";
import { cacheApiResponseCache, responseCacheKey, type ResponseCache } from "./cache";
import type { GraphqlCatalog, GraphqlOperation } from "./operation-allowlist";
import { executeOnUpstream } from "./gateway";
import type { Fetcher } from "./types";
import { applyDataPolicy, maskingLevel, sensitiveFieldsIn } from "./masking";
import type { MaskingRules } from "./output-schema";
import { demoUpstream, resolveUpstream, type OrganizationUpstream } from "./upstream";

export interface GovernedCall {
  principal: Caller;
  env: WorkerEnv;
  signal?: AbortSignal;
  /** The organization's upstream from the directory, when its administrators set one (it wins over upstreams.json). */
  upstream?: OrganizationUpstream;
  /** Fields the organization masks beyond the platform's data policy (coordinate -> unmask scope): never fewer. */
  extraMasking?: Readonly<Record<string, string>>;
}

/** The platform's masking rules plus the organization's additions; the floor's own entries always win. */
function organizationRules(rules: MaskingRules, extra: Readonly<Record<string, string>> | undefined): MaskingRules {
  if (!extra) return rules;
  const sensitive = new Map(Object.entries(extra));
  for (const [coordinate, scope] of rules.sensitive) sensitive.set(coordinate, scope);
  return { mask: rules.mask, sensitive };
}

export interface GovernedOptions {
  /** Replaces the global fetch for HTTP upstreams (tests reach loopback servers through it). */
  fetcher?: Fetcher;
  /** Response cache; defaults to the Cache API. `null` turns caching off. */
  cache?: ResponseCache | null;
  /** Answer from the embedded demo upstream whatever the organization's configuration (examples://orders). */
  forceDemo?: boolean;
}

export interface GovernedResult {
  structuredContent: Record<string, unknown>;
  meta: {
    dataSource: "demo" | "organization-upstream";
    demoData: boolean;
    note?: string;
    cache: "hit" | "miss" | "off";
    partial: boolean;
    maskedFields: string[];
  };
}

export const DEMO_NOTE =
  "Demo data: no GraphQL upstream is configured for this organization, so Arbiter's embedded demo upstream answered with invented orders.";

export async function runGovernedOperation(
  catalog: GraphqlCatalog,
  operation: GraphqlOperation,
  variables: Record<string, unknown>,
  call: GovernedCall,
  options: GovernedOptions = {},
): Promise<GovernedResult> {
  const { principal } = call;
  const upstream = options.forceDemo
    ? demoUpstream(catalog, principal.organizationId)
    : resolveUpstream(catalog, principal.organizationId, call.env, options.fetcher, call.upstream);
  const rules = organizationRules(catalog.masking, call.extraMasking);
  const level = maskingLevel(principal.scopes, rules);
  const maskedFields = (
    rules === catalog.masking ? operation.sensitiveFields : sensitiveFieldsIn(operation.selection, rules)
  )
    .filter((field) => !level.includes(field.unmaskScope))
    .map((field) => field.coordinate);
  // A cached answer was masked under one policy: the organization's additions are part of its key.
  const cacheLevel = call.extraMasking
    ? [
        ...level,
        `masks:${Object.entries(call.extraMasking)
          .sort()
          .map(([c, s]) => `${c}=${s}`)
          .join(",")}`,
      ]
    : level;
  const demo = upstream.kind === "demo";
  const baseMeta = {
    dataSource: demo ? ("demo" as const) : ("organization-upstream" as const),
    demoData: demo,
    ...(demo ? { note: DEMO_NOTE } : {}),
    maskedFields,
  };

  const cache =
    operation.cacheTtlSeconds > 0 && operation.kind === "query"
      ? options.cache === undefined
        ? cacheApiResponseCache()
        : (options.cache ?? undefined)
      : undefined;
  const key = cache
    ? await responseCacheKey({
        organizationId: principal.organizationId,
        maskingLevel: cacheLevel,
        upstreamKind: upstream.kind,
        operation: operation.name,
        variables,
      })
    : undefined;
  if (cache && key) {
    const hit = await cache.get(key);
    if (hit && operation.outputSchema.safeParse(hit).success)
      return { structuredContent: hit, meta: { ...baseMeta, cache: "hit", partial: false } };
  }

  const answer = await executeOnUpstream(
    upstream,
    operation,
    variables,
    { timeoutMs: operation.timeoutMs, maxResponseBytes: catalog.gateway.maxResponseBytes },
    call.signal,
    principal.organizationId,
  );
  const masked = applyDataPolicy(answer.data, operation.selection, principal.scopes, rules);
  const structuredContent = answer.errors.length ? { ...masked, errors: answer.errors } : masked;
  const checked = operation.outputSchema.safeParse(structuredContent);
  if (!checked.success) {
    throw new GatewayFailure(
      "upstream-error",
      `The order API answered data that does not match the ${operation.name} operation (${describeZodIssuesForUpstream(checked.error)}). Its schema may not match policies/graphql/schema.graphql; tell the operator.`,
    );
  }
  if (cache && key && answer.errors.length === 0) await cache.put(key, structuredContent, operation.cacheTtlSeconds);
  return { structuredContent, meta: { ...baseMeta, cache: cache ? "miss" : "off", partial: answer.errors.length > 0 } };
}
