/**
 * What an organization's GrantSweeper (grant-sweeper.ts) offers over RPC. Env types the GRANT_SWEEPER binding by
 * this interface, so no caller imports the class.
 */
import type { Env } from "../env";
import type { SweepState } from "./grant-sweep";

export interface GrantSweeperRpc extends Rpc.DurableObjectBranded {
  /**
   * Starts the organization's sweep from its first grant holder (a sweep under way starts again, since what it swept
   * may need more now), runs its first batch before answering, and leaves the rest to the object's alarm. The state
   * after that batch. The organization is the object's name (grantSweeper).
   */
  sweep(): Promise<SweepState>;
  /** The last sweep's state, or null when the organization never needed one. */
  progress(): Promise<SweepState | null>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** Organization-wide grant revocations, a bounded batch at a time (src/oauth/grant-sweep.ts). */
    GRANT_SWEEPER: DurableObjectNamespace<GrantSweeperRpc>;
  }
}

/** The sweeper of `organizationId`. */
export function grantSweeper(
  env: Pick<Env, "GRANT_SWEEPER">,
  organizationId: string,
): DurableObjectStub<GrantSweeperRpc> {
  return env.GRANT_SWEEPER.get(env.GRANT_SWEEPER.idFromName(organizationId));
}
