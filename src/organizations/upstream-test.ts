/**
 * "Test connection": one harmless GraphQL request (`{ __typename }`) to the organization's upstream, with the
 * credential and organization header its calls send and the order tools' 3 s timeout. The answer names what
 * failed (no upstream set, the address refused, no answer in time, an HTTP status, not a GraphQL answer, the
 * upstream's own errors), never the upstream's text or the credential.
 */
import type { Env } from "../env";
import { organizationChanged } from "../directory/client";
import { organizationUpstream } from "../graphql/organization-upstream";

const TIMEOUT_MS = 3_000;

export interface UpstreamTestResult {
  ok: boolean;
  /** Where the request went (origin and path only). */
  endpoint: string | null;
  credentialSent: boolean;
  status?: number;
  durationMs?: number;
  /** What failed and what to check, when ok is false. */
  problem?: string;
}

export async function testUpstream(env: Env, organizationId: string): Promise<UpstreamTestResult> {
  await organizationChanged(env, organizationId);
  const upstream = await organizationUpstream(env, organizationId);
  if (!upstream)
    return {
      ok: false,
      endpoint: null,
      credentialSent: false,
      problem:
        "No upstream is set for this organization: its order tools answer with the embedded demo data. Set `upstream` in the settings.",
    };
  const url = new URL(upstream.endpoint);
  const endpoint = `${url.origin}${url.pathname}`;
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/graphql-response+json, application/json",
  };
  if (upstream.organizationHeader) headers[upstream.organizationHeader] = organizationId;
  if (upstream.credential)
    headers[upstream.credentialHeader] = upstream.credentialScheme
      ? `${upstream.credentialScheme} ${upstream.credential}`
      : upstream.credential;
  const base = { endpoint, credentialSent: Boolean(upstream.credential) };
  const started = Date.now();
  let response: Response;
  try {
    response = await fetch(upstream.endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify({ query: "{ __typename }" }),
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      ok: false,
      ...base,
      durationMs: Date.now() - started,
      problem: timedOut
        ? `No answer within ${TIMEOUT_MS / 1000} s: check that the endpoint is up and reachable from the internet.`
        : "The connection failed (name not found, refused or reset): check the endpoint's host and port.",
    };
  }
  const durationMs = Date.now() - started;
  const status = response.status;
  if (status >= 300 && status < 400)
    return {
      ok: false,
      ...base,
      status,
      durationMs,
      problem: `The endpoint redirects (HTTP ${status}); Arbiter does not follow redirects: set the final URL.`,
    };
  if (status === 401 || status === 403)
    return {
      ok: false,
      ...base,
      status,
      durationMs,
      problem: `The upstream refused the credential (HTTP ${status}): check the credential, its header (${upstream.credentialHeader}) and scheme.`,
    };
  if (!response.ok)
    return {
      ok: false,
      ...base,
      status,
      durationMs,
      problem: `The upstream answered HTTP ${status}: check the endpoint's path.`,
    };
  const body = (await response.json().catch(() => undefined)) as { data?: unknown; errors?: unknown } | undefined;
  if (!body || typeof body !== "object" || (!("data" in body) && !("errors" in body)))
    return {
      ok: false,
      ...base,
      status,
      durationMs,
      problem: "The endpoint answered, but not with a GraphQL JSON answer: check that the URL is the GraphQL endpoint.",
    };
  if (Array.isArray(body.errors) && body.errors.length > 0 && !body.data)
    return {
      ok: false,
      ...base,
      status,
      durationMs,
      problem: `The upstream answered with ${body.errors.length} GraphQL error(s) to { __typename }: check its logs (their text is not shown here).`,
    };
  return { ok: true, ...base, status, durationMs };
}
