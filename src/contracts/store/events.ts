/**
 * What the store's callers tell after spec arbitration data changed through the CI API (REST): a snapshot verdict
 * stored, or a project's active contract changed. The listener is injected by the composition (src/api/index.ts
 * passes the MCP layer's notifier, which announces the change to subscribed sessions and listen streams), so
 * storage knows no transport. The REST routes call it after their answer (ctx.waitUntil), so CI never waits for the
 * announcements. A listener should not throw; the routes log anything that escapes anyway: the change is stored.
 */
import type { Env } from "../../env";

export interface ContractChangeListener {
  verdictStored(env: Env, organizationId: string, project: string, snapshotId: number): Promise<void>;
  activeContractChanged(env: Env, organizationId: string, project: string, version: number): Promise<void>;
}
