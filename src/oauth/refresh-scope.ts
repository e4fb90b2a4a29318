/**
 * RFC 6749 §6: the scope of a refresh "MUST NOT include any scope not originally granted by the resource owner",
 * and one that does is `invalid_scope`. The OAuth library narrows such a request silently (it answers 200 with
 * the old scopes), which leaves a client that asked for more believing it holds it (the Inspector's step-up
 * then stops with a token that still lacks the scope). This check runs before the library on a refresh that
 * names scopes: when the refresh token is the grant's (its hash matches the stored grant's) and the request asks
 * for a scope the grant lacks, it answers `invalid_scope` naming the extra scopes. Anything else, including every
 * refresh without `scope`, goes to the library unchanged.
 */
import type { Env } from "../env";
import { isUrlEncodedForm, MAX_FORM_BYTES, readUrlEncodedForm } from "../lib/form";
import { sha256Hex } from "../lib/sha256";

/** The library's grant record (workers-oauth-provider docs, storage schema: `grant:{userId}:{grantId}`). */
interface StoredGrant {
  scope?: string[];
  clientId?: string;
  refreshTokenId?: string;
  previousRefreshTokenId?: string;
}

/** The scopes a refresh asks for beyond its grant, or undefined when the library should answer it. */
async function scopesBeyondGrant(
  env: Env,
  form: URLSearchParams,
): Promise<{ extra: string[]; granted: string[] } | undefined> {
  const requested = (form.get("scope") ?? "").split(" ").filter(Boolean);
  const refreshToken = form.get("refresh_token") ?? "";
  const parts = refreshToken.split(":");
  if (form.get("grant_type") !== "refresh_token" || requested.length === 0 || parts.length !== 3) return undefined;
  const grant = await env.OAUTH_KV.get<StoredGrant>(`grant:${parts[0]}:${parts[1]}`, "json");
  if (!grant || !Array.isArray(grant.scope)) return undefined;
  const hash = await sha256Hex(refreshToken);
  if (hash !== grant.refreshTokenId && hash !== grant.previousRefreshTokenId) return undefined;
  const clientId = form.get("client_id");
  if (clientId !== null && clientId !== grant.clientId) return undefined;
  const extra = requested.filter((scope) => !grant.scope!.includes(scope));
  return extra.length > 0 ? { extra, granted: grant.scope } : undefined;
}

function tokenError(error: "invalid_scope" | "invalid_request", description: string): Response {
  return Response.json(
    { error, error_description: description },
    { status: 400, headers: { "Cache-Control": "no-store", Pragma: "no-cache" } },
  );
}

/**
 * A token request this check cannot read is refused here rather than passed on: the library reads any size and
 * decodes bytes that are not UTF-8 with replacement characters, so a refresh it could read and this check could
 * not would skip the check and be narrowed silently. Other media types the library refuses itself.
 */
const UNREADABLE: Record<"too_large" | "truncated" | "unreadable", string> = {
  too_large: `The token request body is larger than ${MAX_FORM_BYTES} bytes. Send only the parameters of RFC 6749 section 4 or 6.`,
  truncated: "The token request body ended before its Content-Length. Send the whole request again.",
  unreadable: "The token request body is not UTF-8 text. Send the parameters form-encoded as UTF-8.",
};

/** The `invalid_scope` answer to a token request that widens its grant, `invalid_request` to one it cannot read, or undefined. */
export async function refreshWideningRefusal(request: Request, env: Env): Promise<Response | undefined> {
  if (request.method !== "POST" || !isUrlEncodedForm(request.headers.get("content-type"))) return undefined;
  const read = await readUrlEncodedForm(request.clone());
  if (!read.ok)
    return read.reason === "media_type" ? undefined : tokenError("invalid_request", UNREADABLE[read.reason]);
  const beyond = await scopesBeyondGrant(env, read.form);
  if (!beyond) return undefined;
  return tokenError(
    "invalid_scope",
    `The refresh asks for ${beyond.extra.join(" ")}, which this grant does not hold (it holds ${beyond.granted.join(" ") || "no scope"}). A refresh keeps or narrows the granted scopes; ask for more with a new authorization.`,
  );
}
