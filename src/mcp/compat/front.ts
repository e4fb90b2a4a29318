/**
 * The compatibility front of /mcp: applies the tolerances of tolerances.ts, in that table's order, to a request
 * whose token, body bounds and scopes the resource handler (../http.ts) has already checked, before the era
 * routing. It returns the headers to forward and what was tolerated, or the answer to a conflict. Everything a
 * rule does not match passes unchanged, so the lanes keep the specification's errors for it.
 */
import { readSingleValued, SINGLE_VALUED_MCP_HEADERS } from "./duplicate-header";
import { BOTH_ACCEPTED, wantsJsonOnly } from "./json-only";
import { sessionlessKind, type SessionlessKind } from "./sessionless";
import { hasModernHeaderWithSessionEraBody, isClaudeAiClient, type ClientRedirects } from "./modern-header-legacy-body";
import type { ToleranceId } from "./tolerances";
import { readVersionHeader } from "./version-header";

export interface FrontDecision {
  /** The request's headers as the lanes should see them. */
  headers: Headers;
  tolerated: ToleranceId[];
}

export type FrontOutcome =
  | { decision: FrontDecision }
  | { refusal: { status: number; message: string; data: Record<string, unknown> } };

export function applyHeaderTolerances(method: string, incoming: Headers, body: unknown): FrontOutcome {
  const headers = new Headers(incoming);
  const tolerated: ToleranceId[] = [];

  for (const name of SINGLE_VALUED_MCP_HEADERS) {
    const outcome = readSingleValued(name, headers.get(name));
    if (outcome.kind === "conflict") {
      return {
        refusal: {
          status: 400,
          message: `Bad Request: the ${name} header was sent more than once with different values (${outcome.values.join(", ")}). Send it once, with one value.`,
          data: { header: name, values: outcome.values },
        },
      };
    }
    if (outcome.kind === "collapsed") {
      headers.set(name, outcome.value);
      if (!tolerated.includes("duplicate-header")) tolerated.push("duplicate-header");
    }
  }

  const version = readVersionHeader(
    headers.get("mcp-protocol-version"),
    headers.get("mcp-session-id"),
    method === "POST" ? body : undefined,
  );
  if (version.kind === "envelope-wins") {
    headers.set("mcp-protocol-version", version.envelope);
    tolerated.push("envelope-with-session-era-header");
  } else if (version.kind === "session-version") {
    // The session lane serves the version its initialize negotiated; without the header it assumes exactly that.
    headers.delete("mcp-protocol-version");
    tolerated.push("session-with-other-version-header");
  }

  return { decision: { headers, tolerated } };
}

/**
 * For a request the session-era lanes serve (they refuse a POST that does not accept an event stream; the
 * 2026-07-28 lane answers JSON-only clients itself): when the client takes JSON only, forward it accepting both,
 * note the tolerance, and say that the answer must be converted to one JSON body (json-only.ts).
 */
export function acceptJsonOnly(method: string, headers: Headers, tolerated: ToleranceId[]): boolean {
  if (method !== "POST" || !wantsJsonOnly(headers.get("accept"))) return false;
  headers.set("accept", BOTH_ACCEPTED);
  tolerated.push("json-only-accept");
  return true;
}

/** For a request the era routing sends to the session lane: whether it is served without a session instead. */
export function sessionlessServing(method: string, headers: Headers, body: unknown): SessionlessKind {
  if (method !== "POST" || headers.has("mcp-session-id")) return "none";
  return sessionlessKind(body);
}

/**
 * For a request the era routing would send to the 2026-07-28 lane only because of its header: when it is
 * claude.ai's session-less 2025-style request (modern-header-legacy-body.ts), drop the header so that it is served
 * as the session-era request it is written as (then by "sessionless-session-request"), and note the tolerance.
 * The client look-up runs only for requests of that shape, which every other client gets refused.
 */
export async function readModernHeaderAsSessionEra(
  method: string,
  headers: Headers,
  body: unknown,
  oauthClientId: string,
  redirectsOf: ClientRedirects,
  tolerated: ToleranceId[],
): Promise<void> {
  if (!hasModernHeaderWithSessionEraBody(method, headers, body)) return;
  if (!(await isClaudeAiClient(oauthClientId, redirectsOf))) return;
  headers.delete("mcp-protocol-version");
  tolerated.push("modern-header-session-era-body");
}
