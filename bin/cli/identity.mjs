// Who a stored token acts for: the signed-in user and the organization, asked of the server with the token
// itself (GET /api/v1/whoami for a REST API token; the MCP whoami tool, in one stateless 2026-07-28 request,
// for an MCP token), so what is printed is what the server will act as, not what the CLI assumes.
import { jsonBody, reach, OAUTH_TIMEOUT_MS } from "./http.mjs";
import { terminalText } from "./safe-text.mjs";

const MODERN_ERA = "2026-07-28";

async function restIdentity(origin, accessToken) {
  const response = await reach(
    `${origin}/api/v1/whoami`,
    { headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" } },
    OAUTH_TIMEOUT_MS,
  );
  return response.ok ? jsonBody(response) : undefined;
}

async function mcpIdentity(origin, accessToken) {
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": MODERN_ERA,
    "io.modelcontextprotocol/clientInfo": { name: "arbiter-cli", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "whoami", arguments: {}, _meta: envelope },
  });
  const headers = {
    Authorization: `Bearer ${accessToken}`,
    Accept: "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": MODERN_ERA,
    "Mcp-Method": "tools/call",
    "Mcp-Name": "whoami",
  };
  const response = await reach(`${origin}/mcp`, { method: "POST", headers, body }, OAUTH_TIMEOUT_MS);
  if (!response.ok) return undefined;
  const text = await response.text();
  const json = text.trimStart().startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  try {
    return JSON.parse(json ?? "").result?.structuredContent;
  } catch {
    return undefined;
  }
}

/** The identity behind the token, or undefined when the server would not say. */
export async function identityOf(origin, resourceName, accessToken) {
  const found =
    resourceName === "mcp" ? await mcpIdentity(origin, accessToken) : await restIdentity(origin, accessToken);
  return found && typeof found.userId === "string" ? found : undefined;
}

/** "user ana (member) of Acme Corp (org id acme)": server text, shown safely. */
export function identityLine(identity) {
  const org = identity.organization ?? {};
  const name =
    org.name && org.name !== org.id
      ? `${terminalText(org.name)} (${terminalText(org.id)})`
      : terminalText(org.id ?? "an unnamed organization");
  return `user ${terminalText(identity.userId)}${identity.role ? ` (${terminalText(identity.role)})` : ""} of organization ${name}`;
}
