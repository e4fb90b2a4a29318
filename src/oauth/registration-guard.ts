/**
 * Runs the registration policy on POST /oauth/register before the OAuth library sees the request. The library
 * also runs it (clientRegistrationCallback), but only after its own checks, which refuse a fragment or a
 * relative URI with a bare "Invalid redirect URI"; checked here first, every refusal names the URI and the
 * rule. A body the guard cannot read as a JSON object goes on unchanged, and the library answers it.
 */
import { readBodyLimited } from "../lib/body";
import { logWarn } from "../lib/log";
import { registrationRefusal } from "./registration-policy";

/** The library's own limit for a registration body. */
const MAX_REGISTRATION_BYTES = 1024 * 1024;

function registrationError(request: Request, status: number, error: string, description: string): Response {
  const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": "no-store", Pragma: "no-cache" });
  // Browser-based clients register with fetch(): like the library's answers, readable from their origin.
  const origin = request.headers.get("origin");
  if (origin) {
    headers.set("Access-Control-Allow-Origin", origin);
    headers.set("Vary", "Origin");
  }
  return new Response(JSON.stringify({ error, error_description: description }), { status, headers });
}

function asObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export async function guardRegistration(
  request: Request,
  forward: (request: Request) => Promise<Response>,
): Promise<Response> {
  if (request.method !== "POST") return forward(request);
  const read = await readBodyLimited(request, MAX_REGISTRATION_BYTES);
  if (!read.ok && read.reason === "too_large")
    return registrationError(
      request,
      413,
      "invalid_request",
      "The registration body is over 1 MiB. Send only the client metadata.",
    );
  if (!read.ok && read.reason === "length_mismatch")
    return registrationError(
      request,
      400,
      "invalid_request",
      "The registration body is shorter or longer than its Content-Length.",
    );
  const bytes = read.ok ? read.bytes : new Uint8Array();
  const metadata = asObject(bytes);
  const refusal = metadata && registrationRefusal(metadata);
  if (refusal) {
    logWarn("oauth error", {
      code: refusal.code,
      status: 400,
      category: "client-registration",
      reason: "registration_policy",
    });
    return registrationError(request, 400, refusal.code, refusal.description);
  }
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  return forward(new Request(request.url, { method: "POST", headers, body: bytes }));
}
