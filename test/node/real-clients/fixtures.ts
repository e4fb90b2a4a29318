/**
 * Wire fixtures of real MCP clients, written by the team from public server-side traces and client docs (nothing
 * copied): what each client sends from its first unauthenticated request through OAuth discovery, registration and
 * the MCP requests up to a tools/call. Each names its sources and the compatibility-front tolerances it needs
 * (src/mcp/compat/tolerances.ts), so a fixture fails when its rule is dropped. replay.test.ts plays them.
 *
 * In `steps`, the session id the server returned to an initialize is sent back only where `session` is true (the
 * clients that never echo it leave it out), and `version` is what the client puts in MCP-Protocol-Version.
 */
import type { ToleranceId } from "../../../src/mcp/compat/tolerances";

export const ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion";

export interface Step {
  /** The JSON-RPC message; `{{envelope}}` in `params._meta` is replaced by the client's 2026-07-28 envelope. */
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Send back the Mcp-Session-Id of the last initialize answer. */
  session?: boolean;
  /** Expected HTTP status (default 200; a notification 202). */
  status?: number;
}

export interface ClientFixture {
  client: string;
  sources: string[];
  tolerances: ToleranceId[];
  userAgent: string;
  accept: string;
  /** What the client GETs to discover OAuth after the 401 (each must answer 200 JSON). */
  discovery: string[];
  registration: {
    client_name: string;
    redirect_uris: string[];
    grant_types: string[];
    token_endpoint_auth_method: string;
    scope?: string;
  };
  /** The redirect URI the authorization request uses (one of the registered ones). */
  redirectUri: string;
  scope: string;
  /** The first request, sent without a token (answered 401 with the challenge). */
  first: Step;
  /** The requests after the token; the last is tools/call whoami, whose result must come back. */
  steps: Step[];
  clientInfo: { name: string; version: string };
}

const PRM = "/.well-known/oauth-protected-resource/mcp";
const ASM = "/.well-known/oauth-authorization-server";
const PUBLIC_CLIENT = { grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none" };

const initialize = (version: string, name: string) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name, version: "1.0.0" } },
});
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
const whoami = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "whoami", arguments: {} },
});
const modern = (message: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({
  ...message,
  params: { ...(message.params as object), _meta: { "{{envelope}}": true, ...meta } },
});
/** The 2026-07-28 keys ChatGPT puts in a session's requests, without the protocol-version key. */
const chatGptMeta = {
  "io.modelcontextprotocol/clientInfo": { name: "openai-mcp", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const discover = { jsonrpc: "2.0", id: 0, method: "server/discover", params: {} };
const modernHeaders = (version: string, method: string, name?: string) => ({
  "MCP-Protocol-Version": version,
  "Mcp-Method": method,
  ...(name ? { "Mcp-Name": name } : {}),
});

/** A 2025-11-25 session client that does everything as the specification says. */
function sessionClient(version: string): Step[] {
  return [
    { body: initialize(version, "") },
    { body: initialized, session: true, headers: { "MCP-Protocol-Version": version }, status: 202 },
    { body: list(1), session: true, headers: { "MCP-Protocol-Version": version } },
    { body: whoami(2), session: true, headers: { "MCP-Protocol-Version": version } },
  ];
}

export const FIXTURES: ClientFixture[] = [
  {
    client: "claude.ai connector, 2026-07-28 handshake",
    sources: ["anthropics/claude-code#93290", "hauptsacheNet/typo3-mcp-server#110"],
    tolerances: ["envelope-with-session-era-header"],
    userAgent: "Claude-User",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://claude.ai/api/mcp/auth_callback",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "claude-ai", version: "0.1.0" },
    first: { body: modern(discover), headers: modernHeaders("2025-11-25", "server/discover") },
    steps: [
      { body: modern(discover), headers: modernHeaders("2025-11-25", "server/discover") },
      { body: modern(list(1)), headers: modernHeaders("2025-11-25", "tools/list") },
      { body: modern(whoami(2)), headers: modernHeaders("2025-11-25", "tools/call", "whoami") },
    ],
  },
  {
    client: "claude.ai connector, initialize handshake (no session echo, JSON-only Accept)",
    sources: [
      "anthropics/claude-ai-mcp#975",
      "anthropics/claude-ai-mcp#583",
      "anthropics/claude-ai-mcp#99",
      "NateBJones-Projects/OB1#33",
    ],
    tolerances: ["sessionless-session-request", "json-only-accept"],
    userAgent: "Claude-User",
    accept: "application/json",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://claude.com/api/mcp/auth_callback",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "claude-ai", version: "0.1.0" },
    first: { body: initialize("2025-11-25", "claude-ai") },
    steps: [
      { body: initialize("2025-11-25", "claude-ai") },
      { body: initialized, headers: { "MCP-Protocol-Version": "2025-11-25" }, status: 202 },
      { body: list(1), headers: { "MCP-Protocol-Version": "2025-11-25" } },
      { body: whoami(2), headers: { "MCP-Protocol-Version": "2025-11-25" } },
    ],
  },
  {
    client: "claude.ai connector, initialize handshake then the 2026-07-28 header in the session",
    sources: ["CodeWithCJ/SparkyFitness#2155"],
    tolerances: ["session-with-other-version-header"],
    userAgent: "Claude-User",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://claude.ai/api/mcp/auth_callback",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "claude-ai", version: "0.1.0" },
    first: { body: initialize("2026-07-28", "claude-ai") },
    steps: [
      { body: initialize("2026-07-28", "claude-ai") },
      { body: initialized, session: true, headers: { "MCP-Protocol-Version": "2026-07-28" }, status: 202 },
      { body: list(1), session: true, headers: { "MCP-Protocol-Version": "2026-07-28" } },
      { body: whoami(2), session: true, headers: { "MCP-Protocol-Version": "2026-07-28" } },
    ],
  },
  {
    client:
      "claude.ai connector, newest: initialize, then session-less requests with the 2026-07-28 header and a 2025-style body",
    sources: ["CodeWithCJ/SparkyFitness#2155", "anthropics/claude-ai-mcp#975", "anthropics/claude-ai-mcp#583"],
    tolerances: ["modern-header-session-era-body", "sessionless-session-request"],
    userAgent: "Claude-User",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://claude.ai/api/mcp/auth_callback",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "claude-ai", version: "0.1.0" },
    first: { body: initialize("2025-11-25", "claude-ai") },
    steps: [
      { body: initialize("2025-11-25", "claude-ai") },
      { body: initialized, headers: { "MCP-Protocol-Version": "2026-07-28" }, status: 202 },
      { body: list(1), headers: { "MCP-Protocol-Version": "2026-07-28" } },
      { body: whoami(2), headers: { "MCP-Protocol-Version": "2026-07-28" } },
    ],
  },
  {
    client: "Claude Desktop (custom connector through claude.ai)",
    sources: ["anthropics/claude-code#93290", "NateBJones-Projects/OB1#33"],
    tolerances: ["envelope-with-session-era-header"],
    userAgent: "Claude-User",
    accept: "*/*",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://claude.ai/api/mcp/auth_callback",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "claude-ai", version: "0.1.0" },
    first: { body: modern(discover), headers: modernHeaders("2025-11-25", "server/discover") },
    steps: [
      { body: modern(discover), headers: modernHeaders("2025-11-25", "server/discover") },
      { body: modern(whoami(2)), headers: modernHeaders("2025-11-25", "tools/call", "whoami") },
    ],
  },
  {
    client: "Claude Code: server/discover, then initialize",
    sources: ["anthropics/claude-code#93290", "anthropics/claude-code#92835"],
    tolerances: [],
    userAgent: "claude-code/2.1.50",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: { client_name: "Claude Code", redirect_uris: ["http://localhost:54212/callback"], ...PUBLIC_CLIENT },
    redirectUri: "http://localhost:54212/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "claude-code", version: "2.1.50" },
    first: { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
    steps: [
      { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
      ...sessionClient("2025-11-25"),
    ],
  },
  {
    client: "Claude Code: the version header twice (init-projection headers merged with the SDK's)",
    sources: ["lowdefy/lowdefy#2345", "different-ai/openwork#3944"],
    tolerances: ["duplicate-header"],
    userAgent: "claude-code/2.1.50",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: { client_name: "Claude Code", redirect_uris: ["http://localhost:54213/callback"], ...PUBLIC_CLIENT },
    redirectUri: "http://localhost:54213/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "claude-code", version: "2.1.50" },
    first: { body: initialize("2025-11-25", "claude-code") },
    steps: [
      { body: initialize("2025-11-25", "claude-code") },
      { body: initialized, session: true, headers: { "MCP-Protocol-Version": "2025-11-25, 2025-11-25" }, status: 202 },
      { body: whoami(2), session: true, headers: { "MCP-Protocol-Version": "2025-11-25, 2025-11-25" } },
    ],
  },
  {
    client: "Claude Code / Claude Agent SDK: JSON-only Accept",
    sources: ["anthropics/claude-code#28414"],
    tolerances: ["json-only-accept"],
    userAgent: "claude-code/2.1.50",
    accept: "application/json",
    discovery: [PRM, ASM],
    registration: { client_name: "Claude Code", redirect_uris: ["http://localhost:54214/callback"], ...PUBLIC_CLIENT },
    redirectUri: "http://localhost:54214/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "claude-code", version: "2.1.50" },
    first: { body: initialize("2025-11-25", "claude-code") },
    steps: sessionClient("2025-11-25"),
  },
  {
    client: "ChatGPT developer-mode connector: discovery probes, DCR, session-less tools/call",
    sources: ["modelcontextprotocol/ext-apps#647", "openai/openai-apps-sdk-examples#165"],
    tolerances: ["sessionless-session-request"],
    userAgent: "openai-mcp/1.0.0",
    accept: "application/json, text/event-stream",
    discovery: ["/.well-known/oauth-protected-resource", PRM, "/.well-known/openid-configuration", ASM],
    registration: {
      client_name: "ChatGPT",
      redirect_uris: [
        "https://chatgpt.com/connector_platform_oauth_redirect",
        "https://chatgpt.com/connector/oauth/arbiter-replay",
      ],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://chatgpt.com/connector_platform_oauth_redirect",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "openai-mcp", version: "1.0.0" },
    first: { body: initialize("2025-11-25", "openai-mcp") },
    steps: [
      { body: initialize("2025-11-25", "openai-mcp") },
      { body: initialized, session: true, headers: { "MCP-Protocol-Version": "2025-11-25" }, status: 202 },
      { body: list(1), session: true, headers: { "MCP-Protocol-Version": "2025-11-25" } },
      { body: whoami(2), headers: { "MCP-Protocol-Version": "2025-11-25" } },
    ],
  },
  {
    client: "ChatGPT: a 2025-11-25 session whose requests carry 2026-07-28 _meta keys without protocolVersion",
    sources: ["stacklok/toolhive#6188", "modelcontextprotocol/csharp-sdk#1852"],
    tolerances: [],
    userAgent: "openai-mcp/1.0.0",
    accept: "application/json, text/event-stream",
    discovery: ["/.well-known/oauth-protected-resource", PRM, "/.well-known/openid-configuration", ASM],
    registration: {
      client_name: "ChatGPT",
      redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://chatgpt.com/connector_platform_oauth_redirect",
    scope: "orders.read contracts.read",
    clientInfo: { name: "openai-mcp", version: "1.0.0" },
    first: { body: initialize("2025-11-25", "openai-mcp") },
    steps: [
      { body: initialize("2025-11-25", "openai-mcp") },
      { body: initialized, session: true, headers: { "MCP-Protocol-Version": "2025-11-25" }, status: 202 },
      {
        body: { ...list(1), params: { _meta: { ...chatGptMeta, "openai/locale": "en-US" } } },
        session: true,
        headers: { "MCP-Protocol-Version": "2025-11-25" },
      },
      {
        body: {
          ...whoami(2),
          params: { name: "whoami", arguments: {}, _meta: { ...chatGptMeta, "openai/subject": "v1/replay-subject" } },
        },
        session: true,
        headers: { "MCP-Protocol-Version": "2025-11-25" },
      },
    ],
  },
  {
    client: "ChatGPT: 2026-07-28 with openai/* _meta",
    sources: ["modelcontextprotocol/ext-apps#647", "OpenAI Apps SDK reference (openai/* request _meta)"],
    tolerances: [],
    userAgent: "openai-mcp/1.0.0",
    accept: "application/json, text/event-stream",
    discovery: ["/.well-known/oauth-protected-resource", "/.well-known/openid-configuration"],
    registration: {
      client_name: "ChatGPT",
      redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://chatgpt.com/connector_platform_oauth_redirect",
    scope: "orders.read contracts.read",
    clientInfo: { name: "openai-mcp", version: "1.0.0" },
    first: { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
    steps: [
      { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
      { body: modern(list(1), { "openai/locale": "en-US" }), headers: modernHeaders("2026-07-28", "tools/list") },
      {
        body: modern(whoami(2), {
          "openai/locale": "en-US",
          "openai/userAgent": "Mozilla/5.0",
          "openai/subject": "v1/replay-subject",
          "openai/userLocation": { country: "BR" },
        }),
        headers: modernHeaders("2026-07-28", "tools/call", "whoami"),
      },
    ],
  },
  {
    client: "VS Code: server/discover, then the initialize fallback",
    sources: [
      "modelcontextprotocol/modelcontextprotocol#2776 (the 2026-07-28 lifecycle's discover-then-initialize fallback, the sequence Claude Code sends in anthropics/claude-code#93290); no public VS Code wire trace was found, so this is the specification's sequence with VS Code's registration",
    ],
    tolerances: [],
    userAgent: "node",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Visual Studio Code",
      redirect_uris: ["http://127.0.0.1:33419", "https://vscode.dev/redirect"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "http://127.0.0.1:33419",
    scope: "orders.read contracts.read",
    clientInfo: { name: "Visual Studio Code", version: "1.110.0" },
    first: { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
    steps: [
      { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
      ...sessionClient("2025-11-25"),
    ],
  },
  {
    client: "VS Code (GitHub Copilot agent mode)",
    sources: [
      "VS Code MCP authentication: DCR with a loopback redirect, and the hosted VS Code Web callback (bytebase/bytebase#20510 lists it among hosted clients)",
    ],
    tolerances: [],
    userAgent: "node",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Visual Studio Code",
      redirect_uris: ["http://127.0.0.1:33418", "https://vscode.dev/redirect"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "http://127.0.0.1:33418",
    scope: "orders.read contracts.read",
    clientInfo: { name: "Visual Studio Code", version: "1.107.0" },
    first: { body: initialize("2025-11-25", "Visual Studio Code") },
    steps: sessionClient("2025-11-25"),
  },
  {
    client: "Cursor",
    sources: ["erp-mafia/accounted#2225 (Cursor's three DCR redirect URIs)", "bytebase/bytebase#20510"],
    tolerances: [],
    userAgent: "Cursor/2.3.0",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Cursor",
      redirect_uris: [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "https://www.cursor.com/agents/mcp/oauth/callback",
        "http://localhost:8787/callback",
      ],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://www.cursor.com/agents/mcp/oauth/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "cursor-vscode", version: "1.0.0" },
    first: { body: initialize("2025-06-18", "cursor-vscode") },
    steps: sessionClient("2025-06-18"),
  },
  {
    client: "Gemini CLI",
    sources: [
      "google-gemini/gemini-cli#7465 (its fixed callback http://localhost:7777/oauth/callback)",
      "google-gemini/gemini-cli#17167",
    ],
    tolerances: [],
    userAgent: "GeminiCLI/0.20.0",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "Gemini CLI MCP Client",
      redirect_uris: ["http://localhost:7777/oauth/callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "http://localhost:7777/oauth/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "gemini-cli-mcp-client", version: "0.0.1" },
    first: { body: initialize("2025-06-18", "gemini-cli-mcp-client") },
    steps: sessionClient("2025-06-18"),
  },
  {
    client: "Microsoft Copilot Studio",
    sources: [
      "tableau/tableau-mcp#866 (its discovery, DCR and authorize sequence)",
      "SmartBear/smartbear-mcp#463 (its per-tool callback path)",
      "Teamwork/mcp#67",
    ],
    tolerances: [],
    userAgent: "Microsoft-Copilot-Studio",
    accept: "application/json, text/event-stream",
    discovery: [ASM, "/.well-known/oauth-protected-resource"],
    registration: {
      client_name: "Copilot Studio",
      redirect_uris: ["https://global.consent.azure-apim.net/redirect/cr938-5farbiter-20mcp-5f43bcb8573bc3e84"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "https://global.consent.azure-apim.net/redirect/cr938-5farbiter-20mcp-5f43bcb8573bc3e84",
    scope: "orders.read contracts.read",
    clientInfo: { name: "Copilot Studio", version: "1.0" },
    first: { body: initialize("2025-03-26", "Copilot Studio") },
    steps: sessionClient("2025-03-26"),
  },
  {
    client: "mcp-remote (stdio bridge for Claude Desktop and others)",
    sources: ["punkpeye/mcp-remote#232 (its default callback: a localhost port, path /oauth/callback)"],
    tolerances: [],
    userAgent: "node",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "MCP CLI Proxy",
      redirect_uris: ["http://localhost:3334/oauth/callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "http://localhost:3334/oauth/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "mcp-remote", version: "0.1.37" },
    first: { body: initialize("2025-06-18", "mcp-remote") },
    steps: sessionClient("2025-06-18"),
  },
  {
    client: "MCP Inspector CLI",
    sources: [
      "@modelcontextprotocol/inspector 2.12 (its callback http://127.0.0.1:6276/oauth/callback, run for real in e2e-mcp-clients.test.ts)",
    ],
    tolerances: [],
    userAgent: "node",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: {
      client_name: "MCP Inspector",
      redirect_uris: ["http://127.0.0.1:6276/oauth/callback"],
      ...PUBLIC_CLIENT,
    },
    redirectUri: "http://127.0.0.1:6276/oauth/callback",
    scope: "orders.read contracts.read offline_access",
    clientInfo: { name: "inspector-cli", version: "2.12.0" },
    first: { body: initialize("2025-11-25", "inspector-cli") },
    steps: sessionClient("2025-11-25"),
  },
  {
    client: "TypeScript SDK 1.x client (StreamableHTTPClientTransport)",
    sources: ["@modelcontextprotocol/sdk 1.32 (run for real in mcp-eras.test.ts)"],
    tolerances: [],
    userAgent: "node",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: { client_name: "SDK 1.x client", redirect_uris: ["http://127.0.0.1:1/callback"], ...PUBLIC_CLIENT },
    redirectUri: "http://127.0.0.1:1/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "sdk-1x", version: "1.32.2" },
    first: { body: initialize("2025-11-25", "sdk-1x") },
    steps: sessionClient("2025-11-25"),
  },
  {
    client: "TypeScript SDK 2.x client pinned to 2026-07-28",
    sources: ["@modelcontextprotocol/client 2.x (run for real in mcp-eras.test.ts)"],
    tolerances: [],
    userAgent: "node",
    accept: "application/json, text/event-stream",
    discovery: [PRM, ASM],
    registration: { client_name: "SDK 2.x client", redirect_uris: ["http://127.0.0.1:1/callback"], ...PUBLIC_CLIENT },
    redirectUri: "http://127.0.0.1:1/callback",
    scope: "orders.read contracts.read",
    clientInfo: { name: "sdk-2x", version: "2.4.0" },
    first: { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
    steps: [
      { body: modern(discover), headers: modernHeaders("2026-07-28", "server/discover") },
      { body: modern(whoami(2)), headers: modernHeaders("2026-07-28", "tools/call", "whoami") },
    ],
  },
];
