/**
 * The Worker establishes the principal from the bearer token on every request and hands it to the session's
 * Durable Object in one internal header. Clients cannot set it: the Worker strips any incoming copy first.
 * Per request (not per session) so that a step-up re-authorization takes effect on the next call.
 */
import { base64url } from "jose";
import type { Principal } from "../core/principal";

export const PRINCIPAL_HEADER = "x-arbiter-principal";

export function encodePrincipal(principal: Principal): string {
  return base64url.encode(JSON.stringify(principal));
}

export function decodePrincipal(value: string | undefined | null): Principal | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(base64url.decode(value))) as Partial<Principal>;
    if (
      typeof parsed.organizationId === "string" &&
      typeof parsed.userId === "string" &&
      typeof parsed.clientId === "string" &&
      typeof parsed.role === "string" &&
      Array.isArray(parsed.scopes) &&
      parsed.scopes.every((s) => typeof s === "string")
    ) {
      return {
        organizationId: parsed.organizationId,
        userId: parsed.userId,
        clientId: parsed.clientId,
        role: parsed.role,
        scopes: parsed.scopes,
      };
    }
  } catch {
    // fall through: an unreadable header is no principal
  }
  return undefined;
}
