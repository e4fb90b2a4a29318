/**
 * One audit record per REST call, written by the router around every route (including calls refused for a
 * missing scope, an unknown route or a wrong method). The arguments digest covers the path parameters and the
 * query string only: never the body (documents, key material) nor any header.
 */
import { digestArguments, logAuditRecord, type AuditOutcome } from "../audit/record";
import type { Principal } from "../mcp/context";
import { logError } from "../web/log";

export function outcomeForStatus(status: number): AuditOutcome {
  if (status < 400) return "ok";
  if (status === 401 || status === 403) return "rejected-by-policy";
  if (status === 429) return "rate-limited";
  if (status === 502) return "upstream-error";
  if (status === 504) return "timeout";
  if (status < 500) return "invalid-input";
  return "error";
}

async function reasonOf(response: Response): Promise<string> {
  if (response.status < 400) return "";
  if (response.status === 403 && response.headers.get("www-authenticate")?.includes("insufficient_scope")) return "insufficient_scope";
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return `HTTP ${response.status}`;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === "string" ? body.error.code.slice(0, 100) : `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

export async function auditRouteCall(input: {
  correlationId: string;
  started: number;
  principal: Principal;
  target: string;
  params: Record<string, string>;
  url: URL;
  response: Response;
}): Promise<void> {
  try {
    const query = Object.fromEntries(input.url.searchParams);
    logAuditRecord({
      correlationId: input.correlationId,
      time: new Date(input.started).toISOString(),
      organizationId: input.principal.organizationId,
      userId: input.principal.userId,
      clientId: input.principal.clientId,
      kind: "route",
      target: input.target,
      argumentsDigest: await digestArguments({ ...(Object.keys(input.params).length ? { params: input.params } : {}), ...(Object.keys(query).length ? { query } : {}) }),
      durationMs: Date.now() - input.started,
      outcome: outcomeForStatus(input.response.status),
      reason: await reasonOf(input.response),
    });
  } catch (error) {
    logError("audit record failed", { correlationId: input.correlationId, error });
  }
}
