/**
 * Current rate-limit usage per client and tool. Which clients: every client with a rate-limit counter of the
 * organization (ratelimit/keys.ts), named by its live grant or its CI key, else listed by id (a window still open
 * after its grant was revoked). The numbers come from each client's coordinator (`usage()`, which counts
 * nothing), so they are exact even before the write-behind counter reaches KV.
 */
import { keyNamesOf } from "../../contracts/services/keys";
import { CI_KEY_CLIENT_PREFIX } from "../../oauth/cikeys";
import { listConnectedGrants } from "../../oauth/connected-clients";
import { clientsWithCounters, REST_RATE_LIMIT_TARGET } from "../../ratelimit/keys";
import { rateLimiterFor } from "../../ratelimit/limiter";
import type { QuotaUsage } from "../../ratelimit/hook";
import { getRateLimitPolicy, quotaFor } from "../../ratelimit/policy";
import { html, type SafeHtml } from "../../lib/html";
import { cutPage } from "../../lib/page";
import { badge, code, emptyState, scrollTable } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { displayText } from "../../oauth/client-display-name";

interface KnownClient {
  clientId: string;
  label: string;
}

function tone(usage: QuotaUsage): { tone: "ok" | "warn" | "bad" | "neutral"; text: string } {
  if (usage.remaining === null) return { tone: "neutral", text: "unknown" };
  if (usage.remaining === 0) return { tone: "bad", text: "limit reached" };
  if (usage.remaining <= Math.max(1, Math.floor(usage.limit * 0.2))) return { tone: "warn", text: "near limit" };
  return { tone: "ok", text: "within quota" };
}

function usageRow(client: KnownClient, usage: QuotaUsage): SafeHtml {
  const used = usage.remaining === null ? null : usage.limit - usage.remaining;
  const status = tone(usage);
  return html`<tr>
<td><strong>${client.label}</strong><br><span class="muted">${code(displayText(client.clientId))}</span></td>
<td>${code(usage.target === REST_RATE_LIMIT_TARGET ? "REST API" : usage.target)}</td>
<td>${used === null ? "unknown" : `${used} of ${usage.limit}`} <span class="muted">per ${usage.windowSeconds} s</span></td>
<td>${usage.remaining ?? "unknown"}</td>
<td>${usage.resetsInSeconds === null ? "unknown" : `${usage.resetsInSeconds} s`}</td>
<td>${badge(status.tone, status.text)}</td>
</tr>`;
}

/** Clients whose usage one page asks their coordinators for. */
export const USAGE_CLIENTS_PER_PAGE = 100;

export async function usagePage(context: ConsoleContext): Promise<Response> {
  // The first page of members' grants names their clients; a client with counters is listed whether or not it is
  // among them (only a client with counters can have an open window, the only thing a row shows).
  const { grants, nextCursor } = await listConnectedGrants(context.env, context.oauth, context.organizationId);
  const granted = new Map<string, string>();
  for (const grant of grants)
    if (!granted.has(grant.clientId)) granted.set(grant.clientId, grant.clientName ?? "Unnamed client");
  const counted = await clientsWithCounters(context.env.RATE_LIMIT_KV, context.organizationId, [...granted.keys()]);

  // A page of clients by id: each one is a call to its coordinator, so an organization with thousands of clients
  // is read a page at a time. CI keys are named for the page's keys alone, not for every key ever created.
  const after = context.url.searchParams.get("after");
  const ids = counted.filter((clientId) => after === null || clientId > after).sort();
  const { items: pageIds, nextAfter } = cutPage(ids, USAGE_CLIENTS_PER_PAGE, (clientId) => clientId);
  const keyIds = pageIds
    .filter((id) => id.startsWith(CI_KEY_CLIENT_PREFIX))
    .map((id) => id.slice(CI_KEY_CLIENT_PREFIX.length));
  const keyNames = await keyNamesOf(context.env, context.organizationId, keyIds);
  const shown: KnownClient[] = pageIds.map((clientId) => {
    const keyName = clientId.startsWith(CI_KEY_CLIENT_PREFIX)
      ? keyNames[clientId.slice(CI_KEY_CLIENT_PREFIX.length)]
      : undefined;
    const label =
      granted.get(clientId) ??
      (keyName !== undefined ? `CI key "${keyName}"` : nextCursor ? "Other client" : "Client without a live grant");
    return { clientId, label };
  });
  const targets = [...context.toolNames(), REST_RATE_LIMIT_TARGET];
  const limiter = rateLimiterFor(context.env);
  const perClient = await Promise.all(
    shown.map(async (client) => ({
      client,
      usage: await limiter.usage({ organizationId: context.organizationId, clientId: client.clientId }, targets),
    })),
  );
  // Only open windows (or counters that cannot be read) are worth a row; the rest are at full quota.
  const rows = perClient.flatMap(({ client, usage }) =>
    usage.filter((u) => u.remaining === null || (u.resetsInSeconds ?? 0) > 0).map((u) => usageRow(client, u)),
  );

  const policy = getRateLimitPolicy();
  const quotas = targets.map((target) => ({ target, ...quotaFor(policy, context.organizationId, target) }));
  const body = html`<h1>Rate limits</h1>
<p class="lead">Calls each client made in its current window, per tool and for the REST API. Quotas come from <span class="mono">policies/rate-limits.json</span>; windows open at a client's first call.</p>
<section aria-labelledby="usage-heading"><h2 id="usage-heading">Current usage</h2>
${rows.length === 0 ? emptyState("No open windows", "No client of your organization has called a tool or the REST API in its current window.") : scrollTable("Current rate-limit usage", ["Client", "Tool", "Used", "Remaining", "Window resets in", "Status"], rows)}
${after !== null || nextAfter !== null ? html`<nav class="pager" aria-label="Pages of clients"><span class="muted">${USAGE_CLIENTS_PER_PAGE} clients per page, by client id.</span>${after !== null ? html`<a href="/admin/usage">First clients</a>` : ""}${nextAfter !== null ? html`<a href="/admin/usage?after=${encodeURIComponent(nextAfter)}">Next clients</a>` : ""}</nav>` : ""}
</section>
<section aria-labelledby="quotas-heading"><h2 id="quotas-heading">Quotas for ${context.organizationName}</h2>
${scrollTable(
  "Quotas per client",
  ["Tool", "Calls per window", "Window"],
  quotas.map(
    (q) =>
      html`<tr><td>${code(q.target === REST_RATE_LIMIT_TARGET ? "REST API (all routes)" : q.target)}</td><td>${q.limit}</td><td>${q.windowSeconds} s</td></tr>`,
  ),
)}
</section>`;
  return consoleResponse(context.frame("Rate limits", "usage"), body);
}
