/**
 * The single place where something happens after spec arbitration data changed through the CI API (REST):
 * a snapshot verdict stored, or a project's active contract changed. Today: the MCP side announces it to the
 * sessions subscribed to the project (it owns the resource URIs and the subscriber bookkeeping in the
 * ContractStore; see src/contracts/mcp/subscriptions.ts). These never throw, and the REST routes log anything
 * that escapes anyway: the change is already stored.
 */
import type { Env } from "../../env";
import { notifyActiveContractSubscribers, notifyVerdictSubscribers } from "../mcp/subscriptions";

export async function onVerdictStored(env: Env, organizationId: string, project: string, snapshotId: number): Promise<void> {
  await notifyVerdictSubscribers(env, organizationId, project, snapshotId);
}

export async function onActiveContractChanged(env: Env, organizationId: string, project: string, version: number): Promise<void> {
  await notifyActiveContractSubscribers(env, organizationId, project, version);
}
