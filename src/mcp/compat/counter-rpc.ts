/**
 * What an organization's ToleranceCounter (counter-store.ts) offers over RPC. Env types the TOLERANCE_COUNTER
 * binding by this interface, so no caller imports the class.
 */
export interface ToleranceCount {
  rule: string;
  client: string;
  kind: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
}

export interface ToleranceCounterRpc extends Rpc.DurableObjectBranded {
  /** Counts one tolerated request; true when this (rule, client, kind) was never seen before. */
  record(rule: string, client: string, kind: string, at: string): Promise<boolean>;
  list(): Promise<ToleranceCount[]>;
}
