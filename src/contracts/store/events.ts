/**
 * The single place where something happens after a verdict is stored for a snapshot (CI upload). Today: tell
 * every MCP session that subscribed to the project (ContractStore `subscribe(project, sessionId)`) that the
 * project's latest-verdict resources changed, through the session object's `notifyResourceUpdated(uri)`.
 * Failures are logged and never fail the upload: the verdict is already stored.
 */
import { getAgentByName } from "agents";
import type { Env } from "../../env";
import { logWarn } from "../../web/log";
import { contractStore } from "./client";
import { notifyVerdictSubscribers } from "../mcp/subscriptions";

/**
 * Resource URIs that change when a project gets a new snapshot verdict. The MCP resources module owns the URI
 * shapes: keep this list in step with it.
 */
export function latestVerdictResourceUris(project: string): string[] {
  return [`spec://${project}/verdict/latest`, "spec://active/verdict"];
}

export async function onVerdictStored(env: Env, organizationId: string, project: string, snapshotId: number): Promise<void> {
  // The MCP side owns the URIs and the session bookkeeping (src/contracts/mcp/subscriptions.ts); it never throws.
  await notifyVerdictSubscribers(env, organizationId, project, snapshotId);
}
