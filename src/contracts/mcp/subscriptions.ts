/**
 * Verdict subscriptions across Durable Objects. A session that subscribes (resources/subscribe) to a project's
 * latest verdict is recorded as a subscriber of that project in its organization's ContractStore; when CI stores
 * a snapshot verdict, notifyVerdictSubscribers asks each recorded session object (`streamable-http:<sessionId>`)
 * to send notifications/resources/updated, which it does only if the session still holds the subscription.
 * Sessions that no longer do (unsubscribed, ended, or never completed) are removed from the store then.
 */
import { getAgentByName } from "agents";
import type { Env } from "../../env";
import type { CallContext } from "../../mcp/context";
import { logWarn } from "../../web/log";
import { contractStore } from "../store/client";
import { cannotVerify, checkProjectAccess, requireProjectStatus, storeOf } from "./access";
import { urisChangedByNewVerdict } from "./uris";

type Context = Pick<CallContext, "principal" | "session" | "env" | "sessionId">;

/** The Durable Object name of a Streamable HTTP session (the naming McpAgent.serve uses). */
export function sessionObjectName(sessionId: string): string {
  return `streamable-http:${sessionId}`;
}

export async function recordVerdictSubscriber(context: Context, project: string): Promise<void> {
  if (!context.sessionId) {
    throw cannotVerify("no_session", "Subscriptions need an MCP session: initialize over Streamable HTTP (the server answers with an Mcp-Session-Id) and subscribe within it.", "invalid-input");
  }
  checkProjectAccess(context.principal, project);
  await requireProjectStatus(context, project);
  await storeOf(context).subscribe(project, context.sessionId);
}

export async function forgetVerdictSubscriber(context: Context, project: string): Promise<void> {
  if (!context.sessionId) return;
  checkProjectAccess(context.principal, project);
  await storeOf(context).unsubscribe(project, context.sessionId);
}

export interface NotificationReport {
  notified: number;
  removed: number;
  failed: number;
}

/** Tells every subscribed session of `project` that its latest-verdict resources changed. Never throws. */
export async function notifyVerdictSubscribers(env: Env, organizationId: string, project: string, snapshotId: number): Promise<NotificationReport> {
  const report: NotificationReport = { notified: 0, removed: 0, failed: 0 };
  const store = contractStore(env, organizationId);
  let sessions: string[];
  try {
    sessions = await store.subscribers(project);
  } catch (error) {
    logWarn("could not read verdict subscribers", { organizationId, project, snapshotId, error });
    return report;
  }
  const uris = urisChangedByNewVerdict(project);
  await Promise.all(
    sessions.map(async (sessionId) => {
      try {
        const session = await getAgentByName(env.MCP_OBJECT, sessionObjectName(sessionId));
        let delivered = false;
        for (const uri of uris) {
          if (await session.notifyResourceUpdated(uri)) delivered = true;
        }
        if (delivered) {
          report.notified++;
        } else {
          await store.unsubscribe(project, sessionId);
          report.removed++;
        }
      } catch (error) {
        // Kept for the next verdict: the failure may be transient.
        report.failed++;
        logWarn("could not notify a verdict subscriber", { organizationId, project, snapshotId, error });
      }
    }),
  );
  return report;
}
