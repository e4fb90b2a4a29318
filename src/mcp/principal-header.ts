/**
 * The Worker establishes the principal from the bearer token on every request and hands it to the session's
 * Durable Object in one internal header. Clients cannot set it: the Worker strips any incoming copy first.
 * Per request (not per session) so that a step-up re-authorization takes effect on the next call.
 */
import type { Principal } from "./context";

export const PRINCIPAL_HEADER = "x-arbiter-principal";

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(value: string): string {
  const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function encodePrincipal(principal: Principal): string {
  return toBase64Url(JSON.stringify(principal));
}

export function decodePrincipal(value: string | undefined | null): Principal | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(fromBase64Url(value)) as Partial<Principal>;
    if (
      typeof parsed.organizationId === "string" &&
      typeof parsed.userId === "string" &&
      typeof parsed.clientId === "string" &&
      typeof parsed.role === "string" &&
      Array.isArray(parsed.scopes) &&
      parsed.scopes.every((s) => typeof s === "string")
    ) {
      return { organizationId: parsed.organizationId, userId: parsed.userId, clientId: parsed.clientId, role: parsed.role, scopes: parsed.scopes };
    }
  } catch {
    // fall through: an unreadable header is no principal
  }
  return undefined;
}
