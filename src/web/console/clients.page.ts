/** Connected clients: the live OAuth grants of the organization's members, each with a Revoke form. */
import {
  type ConnectedGrant,
  isGrantPageCursor,
  listConnectedGrants,
  MEMBERS_PER_PAGE,
} from "../../oauth/connected-clients";
import { displayText } from "../../oauth/client-display-name";
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from "../../oauth/servers";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, csrfInput, emptyState, flash, problem, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";

function clientLabel(grant: ConnectedGrant): SafeHtml {
  return html`<strong>${grant.clientName ?? "Unnamed client"}</strong><br><span class="muted">${code(displayText(grant.clientId))}</span>`;
}

/** The grant's end and what decides it (see grantLifetime): a member should not read "no expiry" for a 10-minute code. */
function expiryCell(grant: ConnectedGrant): SafeHtml {
  const when = grant.expiresAt ? time(grant.expiresAt) : html`<span class="muted">not recorded</span>`;
  const why =
    grant.expiry === "refresh-token"
      ? `refresh token (offline_access) for ${days(REFRESH_TOKEN_TTL_SECONDS)} days; each access token lasts ${hours(ACCESS_TOKEN_TTL_SECONDS)}`
      : grant.expiry === "access-token"
        ? `no refresh token: ends when its access token does (${hours(ACCESS_TOKEN_TTL_SECONDS)})`
        : "code not redeemed yet: lapses unless the app redeems it";
  return html`${when}<br><span class="muted" data-expiry="${grant.expiry}">${why}</span>`;
}

const days = (seconds: number) => Math.round(seconds / 86400);
const hours = (seconds: number) => (seconds === 3600 ? "1 hour" : `${Math.round(seconds / 3600)} hours`);

function row(context: ConsoleContext, grant: ConnectedGrant): SafeHtml {
  const who = `${grant.clientName ?? displayText(grant.clientId)} for ${grant.userName}`;
  return html`<tr>
<td>${clientLabel(grant)}</td>
<td>${grant.userName}<br><span class="muted">${code(grant.userId)}</span></td>
<td>${grant.scopes.length ? grant.scopes.map((scope) => html`${code(scope)} `) : html`<span class="muted">none</span>`}</td>
<td>${time(grant.createdAt)}</td>
<td>${expiryCell(grant)}</td>
<td>${badge("ok", "active")}</td>
<td><form class="inline" method="post" action="/admin/clients/revoke">${csrfInput(context.csrf)}
<input type="hidden" name="user" value="${grant.userId}"><input type="hidden" name="grant" value="${grant.grantId}">
<button type="submit" class="danger small" aria-label="Revoke ${who}">Revoke</button></form></td>
</tr>`;
}

export async function clientsPage(
  context: ConsoleContext,
  notice: { done?: string; error?: string; status?: number } = {},
): Promise<Response> {
  const asked = context.url.searchParams.get("cursor") ?? "";
  const cursor = isGrantPageCursor(asked) ? asked : undefined;
  let stale: string | undefined;
  const page = await listConnectedGrants(context.env, context.oauth, context.organizationId, cursor).catch(
    (error: unknown) => {
      if (cursor === undefined) throw error;
      // A page link KV no longer knows: the first page, saying so.
      stale = "That page link is no longer valid: the first page is shown.";
      return listConnectedGrants(context.env, context.oauth, context.organizationId);
    },
  );
  const { grants } = page;
  const paged = cursor !== undefined || page.nextCursor !== null;
  const clients = new Set(grants.map((g) => g.clientId)).size;
  const body = html`<h1>Connected clients</h1>
<p class="lead">Apps that members of ${context.organizationName} have allowed to act for them. Revoking a grant stops its access and refresh tokens at once; the app must ask the member again.</p>
${flash(notice.done)}${problem(notice.error ?? stale)}
${
  grants.length === 0
    ? emptyState(
        "No connected clients",
        "When a member connects Claude, ChatGPT or another MCP client and approves it, the grant appears here.",
      )
    : html`<p>${grants.length} active ${grants.length === 1 ? "grant" : "grants"} across ${clients} ${clients === 1 ? "client" : "clients"}${paged ? ` on this page (the grants of ${MEMBERS_PER_PAGE} members per page)` : ""}.</p>
${scrollTable(
  "Grants of connected clients",
  ["Client", "Member", "Scopes", "Granted", "Expires", "Status", "Action"],
  grants.map((g) => row(context, g)),
)}`
}
${paged ? html`<nav class="pager" aria-label="Pages of members">${cursor ? html`<a href="/admin/clients">First members</a>` : ""}${page.nextCursor ? html`<a href="/admin/clients?cursor=${encodeURIComponent(page.nextCursor)}">Next members</a>` : ""}</nav>` : ""}`;
  return consoleResponse(context.frame("Connected clients", "clients"), body, notice.status ?? 200);
}
