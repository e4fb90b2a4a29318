/**
 * The audit trail with filters (time range, user, client, tool/route/event, kind, outcome) and keyset
 * pagination, through the same query as GET /api/v1/audit/events and the audit_events_list tool. The filter
 * form is a GET form: it changes nothing. Times in the form are UTC.
 */
import {
  AuditQueryError,
  auditQueryInput,
  auditTrailSummary,
  listAuditEvents,
  type AuditEventsPage,
  type AuditTrailSummary,
} from "../../audit/query";
import { AUDIT_KINDS, AUDIT_OUTCOMES, type AuditOutcome, type AuditRecord } from "../../audit/record";
import { formatBytes } from "../../contracts/services/storage";
import { humaniseIssues } from "../../lib/humanise";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, emptyState, problem, scrollTable, shortened, time, type BadgeTone } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { displayText } from "../../oauth/client-display-name";

const PAGE_SIZE = 25;

const OUTCOME_TONE: Record<AuditOutcome, BadgeTone> = {
  ok: "ok",
  "invalid-input": "warn",
  "rejected-by-policy": "bad",
  "rate-limited": "warn",
  "upstream-error": "bad",
  timeout: "bad",
  error: "bad",
};

/** Form field name -> query field name. */
const TEXT_FILTERS = { user: "userId", client: "clientId", target: "target" } as const;

interface Filters {
  from: string;
  to: string;
  user: string;
  client: string;
  target: string;
  kind: string;
  outcome: string;
}

const LOCAL_MINUTES = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const LOCAL_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** A datetime-local value (no zone) is read as UTC; a full ISO 8601 time is kept as it is. */
function toIso(value: string): string {
  if (LOCAL_MINUTES.test(value)) return `${value}:00Z`;
  if (LOCAL_SECONDS.test(value)) return `${value}Z`;
  return value;
}

/** What the datetime-local input can show again (UTC, minutes). */
function toLocalInput(value: string): string {
  if (LOCAL_MINUTES.test(value)) return value;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? "" : new Date(parsed).toISOString().slice(0, 16);
}

function readFilters(url: URL): Filters {
  const get = (name: string) => (url.searchParams.get(name) ?? "").trim();
  return {
    from: get("from"),
    to: get("to"),
    user: get("user"),
    client: get("client"),
    target: get("target"),
    kind: get("kind"),
    outcome: get("outcome"),
  };
}

function queryInput(filters: Filters, cursor: string | null): Record<string, unknown> {
  const input: Record<string, unknown> = { limit: PAGE_SIZE };
  if (filters.from) input.from = toIso(filters.from);
  if (filters.to) input.to = toIso(filters.to);
  for (const [field, name] of Object.entries(TEXT_FILTERS))
    if (filters[field as keyof typeof TEXT_FILTERS]) input[name] = filters[field as keyof typeof TEXT_FILTERS];
  if (filters.kind) input.kind = filters.kind;
  if (filters.outcome) input.outcome = filters.outcome;
  if (cursor) input.cursor = cursor;
  return input;
}

function filterLink(filters: Filters, cursor?: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  if (cursor) params.set("cursor", cursor);
  const query = params.toString();
  return `/admin/audit${query ? `?${query}` : ""}`;
}

function selectField(id: string, name: string, label: string, options: readonly string[], current: string): SafeHtml {
  return html`<div><label for="${id}">${label}</label><select id="${id}" name="${name}"><option value="">Any</option>${options.map(
    (option) => html`<option value="${option}"${option === current ? html` selected` : ""}>${option}</option>`,
  )}</select></div>`;
}

function filterForm(filters: Filters): SafeHtml {
  return html`<form method="get" action="/admin/audit" class="card" aria-labelledby="filters-heading">
<h2 id="filters-heading">Filters</h2>
<div class="form-grid">
<div><label for="f-from">From <span class="hint">UTC, inclusive</span></label><input type="datetime-local" id="f-from" name="from" value="${toLocalInput(filters.from)}"></div>
<div><label for="f-to">To <span class="hint">UTC, exclusive</span></label><input type="datetime-local" id="f-to" name="to" value="${toLocalInput(filters.to)}"></div>
<div><label for="f-user">User <span class="hint">e.g. ana, or ci-key:&lt;id&gt;</span></label><input type="text" id="f-user" name="user" value="${filters.user}"></div>
<div><label for="f-client">Client <span class="hint">OAuth client id or ci-key:&lt;id&gt;</span></label><input type="text" id="f-client" name="client" value="${filters.client}"></div>
<div><label for="f-target">Tool, route or event <span class="hint">e.g. whoami, POST /api/v1/keys, revoke</span></label><input type="text" id="f-target" name="target" value="${filters.target}"></div>
${selectField("f-kind", "kind", "Kind", AUDIT_KINDS, filters.kind)}
${selectField("f-outcome", "outcome", "Outcome", AUDIT_OUTCOMES, filters.outcome)}
</div>
<div class="actions"><button type="submit" class="primary">Apply filters</button><a class="button" href="/admin/audit">Clear filters</a></div>
</form>`;
}

function eventRow(event: AuditRecord): SafeHtml {
  return html`<tr>
<td>${time(event.time)}</td>
<td>${badge(OUTCOME_TONE[event.outcome] ?? "neutral", event.outcome)}</td>
<td><span class="muted">${event.kind}</span><br>${code(event.target)}</td>
<td>${code(event.userId)}</td>
<td>${code(displayText(event.clientId))}</td>
<td class="reason">${event.reason ? shortened(event.reason, 80) : html`<span class="muted">none</span>`}</td>
<td>${code(event.correlationId)}</td>
</tr>`;
}

/** How much the trail keeps: its days of records, their bytes on disk and the retention. */
function keptLine(summary: AuditTrailSummary): SafeHtml {
  const span =
    summary.oldestDay && summary.newestDay
      ? html`records of ${summary.days} day${summary.days === 1 ? "" : "s"} (${summary.oldestDay} to ${summary.newestDay}, UTC)`
      : html`no records of a day yet`;
  return html`<p>Kept: ${span}, about ${formatBytes(summary.bytes)} on disk. Records are deleted ${summary.retentionDays} days after they were written (the organization's <span class="ident mono">auditRetentionDays</span>); export the organization to keep them longer.</p>`;
}

export async function auditPage(context: ConsoleContext): Promise<Response> {
  const filters = readFilters(context.url);
  const cursor = context.url.searchParams.get("cursor");
  let page: AuditEventsPage | undefined;
  let error: string | undefined;
  const summary = await auditTrailSummary(context.env, context.organizationId);
  const parsed = auditQueryInput.safeParse(queryInput(filters, cursor));
  if (!parsed.success) error = `These filters cannot be used: ${humaniseIssues(parsed.error)}`;
  else {
    try {
      page = await listAuditEvents(context.env, context.organizationId, parsed.data);
    } catch (caught) {
      if (!(caught instanceof AuditQueryError)) throw caught;
      error = caught.message;
    }
  }
  const filtered = Object.values(filters).some(Boolean);
  const results = !page
    ? html``
    : page.events.length === 0
      ? emptyState(
          filtered ? "No events match these filters" : "No events yet",
          filtered
            ? "Widen the time range or clear a filter."
            : "Tool calls, REST calls and OAuth events of your organization appear here.",
        )
      : scrollTable(
          "Audit events",
          ["Time", "Outcome", "What", "User", "Client", "Reason", "Correlation id"],
          page.events.map(eventRow),
          { wide: true },
        );
  const body = html`<h1>Audit trail</h1>
<p class="lead">Every tool call, REST call and OAuth event of ${context.organizationName} (grants, revocations, CI keys), newest first.</p>
${keptLine(summary)}
${filterForm(filters)}
${problem(error)}
<section aria-labelledby="events-heading"><div class="section-head"><h2 id="events-heading">Events</h2>${page ? html`<span class="muted">${page.events.length} shown${cursor ? " (older page)" : ""}</span>` : ""}</div>
${results}
<nav class="pager" aria-label="Audit pages">${cursor ? html`<a href="${filterLink(filters)}">Newest events</a>` : ""}${page?.nextCursor ? html`<a href="${filterLink(filters, page.nextCursor)}">Older events</a>` : ""}</nav>
</section>`;
  return consoleResponse(context.frame("Audit trail", "audit"), body, error ? 400 : 200);
}
