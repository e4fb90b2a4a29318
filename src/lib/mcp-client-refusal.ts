// Bundled in place of `@modelcontextprotocol/client` (wrangler.toml [alias]), the MCP client SDK that `agents` brings
// for an agent that connects to other MCP servers (MCPClientManager, addMcpServer). Arbiter is only a server: it never
// connects to another MCP server, so the ~400 KiB the client added to the bundle never ran here. The names `agents`
// imports exist, so its modules load (one extends the transports at import time); constructing or calling any of
// them fails with this message instead. The JSON Schema validator subpath (`/validators/cf-worker`) stays the real one.
const REFUSED =
  "The MCP client SDK is not bundled in this Worker (wrangler.toml [alias], src/lib/mcp-client-refusal.ts): Arbiter serves MCP and never connects to another MCP server.";

function refuse(): never {
  throw new Error(REFUSED);
}

export class Client {
  constructor() {
    refuse();
  }
}

export class StreamableHTTPClientTransport {
  constructor() {
    refuse();
  }
}

export class SSEClientTransport {
  constructor() {
    refuse();
  }
}

/** Only ever compared with `instanceof`: no instance exists, so nothing matches. */
export class SdkHttpError extends Error {
  readonly status: number = 0;
}

export function validateClientMetadataUrl(): never {
  refuse();
}
