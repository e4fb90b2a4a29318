/**
 * What an organization's ToleranceCounter (counter-store.ts) offers over RPC. Env types the TOLERANCE_COUNTER
 * binding by this interface, so no caller imports the class. Its report carries the tolerance table too, so the REST
 * route that shows it (src/api/mcp-tolerances.routes.ts) needs nothing from the MCP front but this binding.
 */
import type { Tolerance } from "./tolerances";

export interface ToleranceCount {
  rule: string;
  client: string;
  kind: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
}

export interface ToleranceCounterRpc extends Rpc.DurableObjectBranded {
  /**
   * Removes everything this object stores: its organization was deleted (src/directory/store.ts, after the grace
   * period and an export). Only the directory calls it, on the object named by that organization's id.
   */
  purgeOrganization(organizationId: string): Promise<void>;
  /**
   * Counts one tolerated request of the OAuth client `oauthClientId`; true when this (rule, client, kind) was never
   * seen before and got a row of its own (not the rule's overflow row).
   */
  record(rule: string, client: string, kind: string, at: string, oauthClientId?: string): Promise<boolean>;
  /** The tolerance table and this organization's counts. */
  report(): Promise<ToleranceReport>;
}

export interface ToleranceReport {
  tolerances: readonly Tolerance[];
  counts: ToleranceCount[];
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../../env" {
  interface Env {
    /** Deviations of real clients tolerated at /mcp, counted per organization (src/mcp/compat/). */
    TOLERANCE_COUNTER: DurableObjectNamespace<ToleranceCounterRpc>;
  }
}
