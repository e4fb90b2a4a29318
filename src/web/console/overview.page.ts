/** The console's first page: counts with links to each section, tool calls per day and the latest audit events. */
import { listAuditEvents } from "../../audit/query";
import { keyCountsNow } from "../../contracts/services/keys";
import { projectCounts } from "../../contracts/services/projects";
import { CONSOLE_CLIENT_ID, listConnectedGrants } from "../../oauth/connected-clients";
import { displayText } from "../../oauth/client-display-name";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, emptyState, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { toolActivity } from "./tool-activity";
import { toolActivitySection } from "./tool-activity-chart";

function stat(value: number | string, label: string, href: string, linkText: string, note?: SafeHtml): SafeHtml {
  return html`<div class="stat"><span class="value">${value}</span><span>${label}</span>${note ? html`<br>${note}` : ""}<br><a href="${href}">${linkText}</a></div>`;
}

/** How many events "Recent activity" shows. */
const RECENT = 8;

/**
 * Administrators' own console page views (each one a `GET` record of client admin-console) stay in the audit
 * trail but not in "Recent activity", which would otherwise show mostly the visit that led to it.
 */
const isConsolePageView = (event: { clientId: string; kind: string; target: string }) =>
  event.clientId === CONSOLE_CLIENT_ID && event.kind === "route" && event.target.startsWith("GET ");

export async function overviewPage(context: ConsoleContext): Promise<Response> {
  const [{ grants, nextCursor }, keys, projects, recent, activity] = await Promise.all([
    // The first page of members' grants: counts beyond it end in "+".
    listConnectedGrants(context.env, context.oauth, context.organizationId),
    keyCountsNow(context.env, context.organizationId),
    projectCounts(context),
    listAuditEvents(context.env, context.organizationId, { limit: 50 }),
    toolActivity(context.env, context.organizationId),
  ]);
  const events = recent.events.filter((event) => !isConsolePageView(event)).slice(0, RECENT);
  const activeKeys = keys.active;
  const inactiveKeys = keys.revoked + keys.expired;
  const clients = new Set(grants.map((g) => g.clientId)).size;
  const { withoutContract } = projects;
  const body = html`<h1>${context.organizationName}</h1>
<p class="lead">Signed in as ${context.admin.name} (administrator). Bound, watch and revoke what clients and CI do.</p>
<div class="stats">
${stat(nextCursor ? `${clients}+` : clients, clients === 1 && !nextCursor ? "connected client" : "connected clients", "/admin/clients", "Review grants", html`<span class="muted">${grants.length}${nextCursor ? "+" : ""} ${grants.length === 1 && !nextCursor ? "grant" : "grants"}</span>`)}
${stat(activeKeys, activeKeys === 1 ? "active CI key" : "active CI keys", "/admin/keys", "Manage keys", inactiveKeys > 0 ? html`<span class="muted">${inactiveKeys} revoked or expired</span>` : undefined)}
${stat(projects.total, projects.total === 1 ? "project" : "projects", "/admin/projects", "See verdicts", withoutContract ? badge("warn", `${withoutContract} without contract`) : undefined)}
</div>
${toolActivitySection(activity)}
<section aria-labelledby="recent-heading"><div class="section-head"><h2 id="recent-heading">Recent activity</h2><a href="/admin/audit">Full audit trail</a></div>
${
  events.length === 0
    ? emptyState("No activity yet", "Tool calls, REST calls and OAuth events will appear here.")
    : scrollTable(
        "Recent audit events",
        ["Event", "Client"],
        events.map(
          // What matters on a phone sits in the first column: outcome, what, when and who; the client follows.
          (e) =>
            html`<tr><td>${badge(e.outcome === "ok" ? "ok" : e.outcome === "invalid-input" || e.outcome === "rate-limited" ? "warn" : "bad", e.outcome)} ${code(e.target)}<span class="event-meta">${time(e.time)} · ${code(e.userId)}</span></td><td>${code(displayText(e.clientId))}</td></tr>`,
        ),
        { compact: true },
      )
}
</section>`;
  return consoleResponse(context.frame("Overview", "overview"), body);
}
