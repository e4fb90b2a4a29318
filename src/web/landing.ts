import type { Env } from "../env";
import { devSignInEnabled } from "../env";
import { html, htmlResponse } from "../lib/html";

export function landingPage(env: Env): Response {
  const origin = new URL(env.PUBLIC_URL).origin;
  const mcpUrl = `${origin}/mcp`;
  return htmlResponse(
    "Arbiter: governed MCP server",
    html`<div class="card">
<h1>Arbiter</h1>
<p>A remote MCP server that connects AI assistants and CI to an organization's order data and API contracts, with OAuth scopes, rate limits, data masking and an audit trail.</p>
${devSignInEnabled(env) ? html`<p class="dev" role="note">Development mode: development sign-in is on and order data comes from the embedded demo upstream.</p>` : ""}
<h2>Connect a client</h2>
<p>MCP server URL: <code>${mcpUrl}</code></p>
<ul>
<li><strong>Claude</strong>: Settings, Connectors, Add custom connector, paste the URL, then sign in and approve.</li>
<li><strong>ChatGPT</strong>: Settings, Apps and Connectors, Create, paste the URL, choose OAuth, then sign in and approve.</li>
<li><strong>MCP Inspector</strong>: <code>npx @modelcontextprotocol/inspector</code>, transport Streamable HTTP, URL above.</li>
</ul>
<p>Clients discover OAuth from <code>${origin}/.well-known/oauth-protected-resource/mcp</code>. CI and scripts use the REST API at <code>${origin}/api/v1/</code> with a token for that resource or a CI key.</p>
<h2>From a terminal</h2>
<p>Get the CLI (<a href="/cli/arbiter.mjs">/cli/arbiter.mjs</a>, Node 18.3+, no dependencies), sign in once in the browser, then print a REST API token for scripts:</p>
<pre tabindex="0" role="region" aria-label="Terminal commands: get the CLI and sign in"><code id="cli-login">curl -fsSO ${origin}/cli/arbiter.mjs
node arbiter.mjs login --server ${origin}
TOKEN=$(node arbiter.mjs token)</code></pre>
<h2>For administrators</h2>
<p>The <a href="/admin">organization admin console</a> shows connected clients, CI keys, projects and their verdicts, the audit trail and rate-limit usage.</p>
<p><a href="/health">Health</a></p>
</div>`,
  );
}
