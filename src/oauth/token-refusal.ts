/**
 * Why a bearer token was refused, in words a person can act on. The resource servers call this only after a
 * token failed validation; the answer becomes the 401 body's `error_description` (the WWW-Authenticate challenge
 * is the library's, unchanged). It never repeats the token.
 */
import { OAuthError, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { looksLikeCiKey } from "./cikeys";

export interface ResourceNames {
  mcpResource: string;
  apiResource: string;
}

function audiences(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The description of a refused token presented to `resource`. */
export async function describeRefusedToken(
  oauth: OAuthHelpers,
  names: ResourceNames,
  resource: string,
  token: string,
): Promise<string> {
  const forApi = resource === names.apiResource;
  if (looksLikeCiKey(token)) {
    return forApi
      ? "The CI key is unknown, revoked or expired. Ask an organization admin for a new key (POST /api/v1/keys or the console)."
      : `CI keys work only on the REST API (${names.apiResource}); ${names.mcpResource} needs an OAuth access token issued for it.`;
  }
  // The library refuses a token of the other resource without saying so; its stored grant names the audience.
  const summary = await oauth.unwrapToken(token).catch(() => null);
  const issuedFor = audiences(summary?.audience);
  if (summary && !issuedFor.includes(resource)) {
    const needs = forApi ? "REST needs a token" : "MCP needs a token";
    return `This token was issued for ${issuedFor.join(", ") || names.mcpResource}; ${needs} for ${resource}. Ask for one with resource=${resource} when authorizing (arbiter login does).`;
  }
  return "The access token is unknown, expired or revoked. Get a new one (sign in again, or arbiter login) and retry.";
}

/** The refusal as the library's OAuthError: a 401 with the library's own Bearer challenge and our description. */
export function invalidToken(description: string): OAuthError {
  return new OAuthError("invalid_token", { description, statusCode: 401 });
}
