// Bundled in place of the `capnweb` package (wrangler.toml [alias]): Arbiter opens no Cap'n Web sessions.
// `agents` imports capnweb statically for one optional transport: an Agent accepts a Cap'n Web RPC session over a
// WebSocket upgrade that asks for it with `?__agents_transport=capnweb` (agents' websockets module), and its browser
// client speaks it. Arbiter's only Agent is the MCP session object, which the /mcp front reaches over Streamable HTTP
// and never with such an upgrade; no client of Arbiter uses agents' browser client. Should anything ever ask for it,
// the session is refused with this message instead of exposing an RPC surface nobody reviewed.
const REFUSAL =
  "Arbiter opens no Cap'n Web sessions: capnweb is not bundled (wrangler.toml [alias], src/lib/capnweb-refusal.ts).";

export function newWebSocketRpcSession(): never {
  throw new Error(REFUSAL);
}

/** Extended by agents' browser client when its module is evaluated; never constructed on Arbiter's paths. */
export class RpcTarget {}
