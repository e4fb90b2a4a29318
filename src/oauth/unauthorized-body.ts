/**
 * Gives every 401 of the two protected resources a short JSON body beside the library's RFC 6750 challenge
 * (which stays exactly as the library built it: clients follow the header). The library answers a missing or
 * malformed Authorization header with an empty 401; a refused token carries our description (token-refusal.ts).
 *
 *   /mcp:  application/json          { error, error_description }
 *   /api:  application/problem+json  { type, title, status, detail, code, error, error_description }
 * `error` is the RFC 6750 code (`invalid_token`, `invalid_request`) or `missing_token` when no credential came.
 */
import { looksLikeCiKey } from "./cikeys";
import { PROBLEM_CONTENT_TYPE, problemType } from "../core/problem";

export type ResourceKind = "mcp" | "api";

interface Refusal {
  error: string;
  description: string;
}

function fromHeader(authorization: string | null, kind: ResourceKind): Refusal {
  const credential = kind === "api" ? "an access token or a CI key" : "an OAuth access token";
  if (!authorization?.trim()) {
    return {
      error: "missing_token",
      description: `This resource needs ${credential}: send it as Authorization: Bearer <token>.`,
    };
  }
  const value = authorization.trim();
  const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
  if (looksLikeCiKey(value)) {
    return {
      error: "invalid_request",
      description:
        "The Authorization header holds a CI key without its scheme: send it as Authorization: Bearer <key>.",
    };
  }
  if (scheme && scheme.toLowerCase() !== "bearer") {
    return {
      error: "invalid_request",
      description: `The Authorization scheme "${scheme.slice(0, 20)}" is not accepted: send ${credential} as Authorization: Bearer <token>.`,
    };
  }
  return {
    error: "invalid_request",
    description: `The Authorization header is malformed: send ${credential} as Authorization: Bearer <token> (one token, no spaces or commas).`,
  };
}

async function refusalOf(request: Request, response: Response, kind: ResourceKind): Promise<Refusal> {
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { error?: unknown; error_description?: unknown } | null;
    if (typeof body?.error === "string" && typeof body.error_description === "string")
      return { error: body.error, description: body.error_description };
  }
  // The library reached validation and refused what the validator returned: an invalid token, not a header problem.
  if (/error="invalid_token"/.test(response.headers.get("www-authenticate") ?? "")) {
    return {
      error: "invalid_token",
      description: "The access token is unknown, expired or revoked. Get a new one and retry.",
    };
  }
  return fromHeader(request.headers.get("authorization"), kind);
}

export async function withUnauthorizedBody(
  request: Request,
  response: Response,
  kind: ResourceKind,
): Promise<Response> {
  if (response.status !== 401) return response;
  const { error, description } = await refusalOf(request, response, kind);
  const headers = new Headers(response.headers);
  headers.set("Cache-Control", "no-store");
  if (kind === "mcp") {
    headers.set("Content-Type", "application/json");
    return new Response(JSON.stringify({ error, error_description: description }), { status: 401, headers });
  }
  headers.set("Content-Type", PROBLEM_CONTENT_TYPE);
  const problem = {
    type: problemType(error),
    title: "Unauthorized",
    status: 401,
    detail: description,
    code: error,
    error,
    error_description: description,
  };
  return new Response(JSON.stringify(problem), { status: 401, headers });
}
