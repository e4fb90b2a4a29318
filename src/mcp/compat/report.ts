/**
 * Logs and counts the deviations the front tolerated: every tolerated request is counted in its organization's
 * ToleranceCounter after the answer is sent; the first one of each (rule, client, request kind) is logged with the
 * rule, the source that documents it and the client's name, so an operator sees which clients need which rule.
 * A failed count is logged and never changes the answer.
 */
import type { Env } from "../../env";
import { logInfo, logWarn } from "../../lib/log";
import { toleranceById, type ToleranceId } from "./tolerances";

export interface ToleratedRequest {
  organizationId: string;
  /** The OAuth client the token was issued to: it bounds how many rows one client's words can open. */
  oauthClientId: string;
  client: string;
  kind: string;
  rules: readonly ToleranceId[];
}

export async function recordTolerated(env: Env, tolerated: ToleratedRequest, now: Date = new Date()): Promise<void> {
  const counter = env.TOLERANCE_COUNTER.get(env.TOLERANCE_COUNTER.idFromName(tolerated.organizationId));
  for (const rule of tolerated.rules) {
    try {
      const first = await counter.record(
        rule,
        tolerated.client,
        tolerated.kind,
        now.toISOString(),
        tolerated.oauthClientId,
      );
      if (first) {
        logInfo("mcp deviation tolerated", {
          rule,
          client: tolerated.client,
          kind: tolerated.kind,
          organizationId: tolerated.organizationId,
          source: toleranceById(rule).source,
        });
      }
    } catch (error) {
      logWarn("mcp deviation count failed", { rule, error });
    }
  }
}
