/**
 * Which upstream answers an organization's operations, from policies/graphql/upstreams.json and the Worker's
 * vars, secrets and bindings: a service binding, an HTTP endpoint (with the credential secret in the
 * configured header), or, when nothing is configured, the embedded demo upstream. The credential's value is
 * read here and goes only into the upstream request's headers: never into a result, an error or a log.
 */
import { GatewayFailure } from "./errors";
import type { WorkerEnv as Env } from "./types";
import { logWarn } from "../lib/log";
import type { GraphqlCatalog } from "./operation-allowlist";
import { demoUpstreamFor } from "./demo-upstream";
import type { Fetcher } from "./types";

export interface ResolvedUpstream {
  kind: "demo" | "http" | "service";
  endpoint: string;
  headers: Record<string, string>;
  fetcher: Fetcher;
}

/** Endpoint used for the in-process demo and as the URL of service-binding requests. */
const DEMO_ENDPOINT = "https://demo-upstream.arbiter.internal/graphql";
const SERVICE_ENDPOINT = "https://upstream.service.internal/graphql";

function envValue(env: Env, name: string | undefined): unknown {
  return name ? (Reflect.get(env, name) as unknown) : undefined;
}

function notConfigured(detail: string): GatewayFailure {
  return new GatewayFailure(
    "upstream-error",
    `The order API for this organization is not configured correctly (${detail}). Ask the operator to fix it.`,
  );
}

function baseHeaders(): Record<string, string> {
  return { "Content-Type": "application/json", Accept: "application/graphql-response+json, application/json" };
}

/** The embedded demo upstream, bound to one organization's demo data. */
export function demoUpstream(catalog: GraphqlCatalog, organizationId: string): ResolvedUpstream {
  return {
    kind: "demo",
    endpoint: DEMO_ENDPOINT,
    headers: baseHeaders(),
    fetcher: demoUpstreamFor(catalog.schema).fetcherFor(organizationId),
  };
}

/**
 * An upstream the organization's administrators configured at runtime (the directory, src/directory/): it wins over
 * upstreams.json. The endpoint was checked when it was set (https, public address outside development).
 */
export interface OrganizationUpstream {
  endpoint: string;
  credentialHeader: string;
  credentialScheme?: string;
  organizationHeader?: string;
  /** The write-only credential, decrypted for this request's header only. */
  credential?: string;
}

function organizationConfigured(
  configured: OrganizationUpstream,
  organizationId: string,
  fetcher: Fetcher | undefined,
): ResolvedUpstream {
  const headers = baseHeaders();
  if (configured.organizationHeader) headers[configured.organizationHeader] = organizationId;
  if (configured.credential)
    headers[configured.credentialHeader] = configured.credentialScheme
      ? `${configured.credentialScheme} ${configured.credential}`
      : configured.credential;
  return { kind: "http", endpoint: configured.endpoint, headers, fetcher: fetcher ?? ((request) => fetch(request)) };
}

export function resolveUpstream(
  catalog: GraphqlCatalog,
  organizationId: string,
  env: Env,
  fetcher: Fetcher | undefined,
  fromDirectory?: OrganizationUpstream,
): ResolvedUpstream {
  if (fromDirectory) return organizationConfigured(fromDirectory, organizationId, fetcher);
  const entry = catalog.upstreams.organizations[organizationId] ?? catalog.upstreams.default;
  const headers = baseHeaders();

  if (entry.serviceBinding) {
    const binding = envValue(env, entry.serviceBinding) as { fetch?: unknown } | undefined;
    if (!binding || typeof binding.fetch !== "function")
      throw notConfigured(`service binding ${entry.serviceBinding} is missing`);
    const service = binding as { fetch(request: Request): Promise<Response> };
    const path = envValue(env, entry.endpointVar);
    return withCredentials(
      {
        kind: "service",
        endpoint: typeof path === "string" && path ? new URL(path, SERVICE_ENDPOINT).href : SERVICE_ENDPOINT,
        headers,
        fetcher: (request) => service.fetch(request),
      },
      entry,
      organizationId,
      env,
    );
  }

  const configured = envValue(env, entry.endpointVar);
  if (typeof configured !== "string" || configured.trim() === "") return demoUpstream(catalog, organizationId);
  let url: URL;
  try {
    url = new URL(configured.trim());
  } catch {
    throw notConfigured(`${entry.endpointVar} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw notConfigured(`${entry.endpointVar} must be an http(s) URL`);
  return withCredentials(
    { kind: "http", endpoint: url.href, headers, fetcher: fetcher ?? ((request) => fetch(request)) },
    entry,
    organizationId,
    env,
  );
}

function withCredentials(
  upstream: ResolvedUpstream,
  entry: GraphqlCatalog["upstreams"]["default"],
  organizationId: string,
  env: Env,
): ResolvedUpstream {
  if (entry.organizationHeader) upstream.headers[entry.organizationHeader] = organizationId;
  if (entry.credentialSecret) {
    const secret = envValue(env, entry.credentialSecret);
    if (typeof secret === "string" && secret !== "") {
      upstream.headers[entry.credentialHeader] = entry.credentialScheme
        ? `${entry.credentialScheme} ${secret}`
        : secret;
    } else {
      // Some upstreams need no credential (a loopback server in development); say which secret is unset, never a value.
      logWarn("graphql upstream credential not set", { organizationId, secret: entry.credentialSecret });
    }
  }
  return upstream;
}
