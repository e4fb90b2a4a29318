/**
 * The single place where something happens after a verdict is stored for a snapshot (CI upload over REST).
 * Today: the MCP side notifies the sessions subscribed to the project's latest verdict (it owns the resource
 * URIs and the subscriber bookkeeping in the ContractStore; see src/contracts/mcp/subscriptions.ts). It never
 * throws, and the REST route logs anything that escapes anyway: the verdict is already stored.
 */
import type { Env } from "../../env";
import { notifyVerdictSubscribers } from "../mcp/subscriptions";

export async function onVerdictStored(env: Env, organizationId: string, project: string, snapshotId: number): Promise<void> {
  await notifyVerdictSubscribers(env, organizationId, project, snapshotId);
}
