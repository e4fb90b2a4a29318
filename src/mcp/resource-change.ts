/**
 * A change announced to a session: `changed` are the URIs whose content changed, `watched` every URI through
 * which a session may follow `topic` (the changed ones included). Its own module because both lanes' Durable
 * Objects take it over RPC (session-rpc.ts), which the bindings (src/env.ts) name.
 */
export interface ResourceChange {
  topic: string;
  changed: readonly string[];
  watched: readonly string[];
}
