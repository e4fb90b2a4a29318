/**
 * Accepted breaks in the console: the project page's section (each acceptance with its state, a Revoke form, and
 * the form that accepts a break by the fingerprint its verdict page shows) and the two forms' actions. Each action is
 * one governed operation with the scope of its REST equivalent (POST and DELETE
 * /api/v1/projects/:project/accepted-breaks, contracts.write) through the same service REST and MCP use.
 */
import {
  acceptBreak,
  acceptBreakRequest,
  MAX_ACCEPTANCE_DAYS,
  revokeAcceptedBreak,
} from "../../contracts/services/acceptances";
import type { AcceptedBreakRecord } from "../../contracts/store/acceptance-table";
import { isProjectName } from "../../contracts/store/names";
import { Failure } from "../../core/failure";
import { humaniseIssues } from "../../lib/humanise";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, csrfInput, emptyState, flash, problem, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { failurePage, isFormProblem, runGoverned, withCorrelationId, type ConsoleOperation } from "./governed";

/** What the accept form was filled with, shown again after a refusal. */
export interface AcceptFormValues {
  fingerprint: string;
  reason: string;
  owner: string;
  expiresOn: string;
}

export interface AcceptedBreaksNotice {
  done?: string;
  error?: string;
  /** The page's status: a refused form's (400, 404, 409). */
  status?: number;
  values?: AcceptFormValues;
}

const STATE_TONE = { "in-force": "ok", "not-matching": "warn", expired: "neutral", revoked: "neutral" } as const;

/** Messages after a redirect, by code (never text from the URL). */
export const ACCEPTED_BREAK_DONE: Record<string, string> = {
  "break-accepted": "The break is accepted: later verdicts of this project report it as accepted until it expires.",
  "break-revoked": "The acceptance was revoked: the change is an error again in later verdicts.",
};

function row(context: ConsoleContext, acceptance: AcceptedBreakRecord): SafeHtml {
  const open = acceptance.state === "in-force" || acceptance.state === "not-matching";
  return html`<tr>
<td>${code(acceptance.id)}<span class="event-meta">${code(acceptance.fingerprint)}</span></td>
<td>${code(acceptance.rule)}<span class="event-meta">${code(acceptance.location)}</span></td>
<td class="reason">${acceptance.reason}<span class="event-meta">owner ${acceptance.owner}, by ${code(acceptance.createdBy)}</span></td>
<td>${time(acceptance.expiresAt)}</td>
<td>${badge(STATE_TONE[acceptance.state], acceptance.state)}${acceptance.lastMatchedAt ? html`<span class="event-meta">last applied ${time(acceptance.lastMatchedAt)}</span>` : ""}</td>
<td>${
    open
      ? html`<form class="inline" method="post" action="/admin/accepted-breaks/revoke">${csrfInput(context.csrf)}<input type="hidden" name="project" value="${acceptance.project}"><input type="hidden" name="id" value="${acceptance.id}">
<button type="submit" class="danger small" aria-label="Revoke accepted break ${acceptance.id}">Revoke</button></form>`
      : html`<span class="muted">none</span>`
  }</td>
</tr>`;
}

/** The project page's section: the list and the accept form. */
export function acceptedBreaksSection(
  context: ConsoleContext,
  project: string,
  acceptances: readonly AcceptedBreakRecord[],
  notice: AcceptedBreaksNotice = {},
): SafeHtml {
  const values = notice.values ?? { fingerprint: "", reason: "", owner: "", expiresOn: "" };
  return html`<section aria-labelledby="accepted-heading"><h2 id="accepted-heading">Accepted breaks</h2>
${flash(notice.done)}${problem(notice.error)}
${
  acceptances.length === 0
    ? emptyState(
        "No accepted breaks",
        "A breaking change the team has decided to ship can be accepted until a date: its verdicts then report it as accepted instead of an error.",
      )
    : scrollTable(
        "Accepted breaks",
        ["Acceptance", "Change", "Reason", "Expires", "State", "Action"],
        acceptances.map((acceptance) => row(context, acceptance)),
      )
}
<form method="post" action="/admin/accepted-breaks" class="card">${csrfInput(context.csrf)}<input type="hidden" name="project" value="${project}">
<h3>Accept a break</h3>
<div class="field"><label for="accept-fingerprint">Fingerprint <span class="hint">Shown under each error on a verdict page, e.g. bc-1f2e3d4c5b6a7980</span></label>
<input type="text" id="accept-fingerprint" name="fingerprint" required pattern="bc-[0-9a-f]{16}" value="${values.fingerprint}"></div>
<div class="field"><label for="accept-reason">Reason</label>
<input type="text" id="accept-reason" name="reason" required minlength="3" maxlength="500" value="${values.reason}"></div>
<div class="field"><label for="accept-owner">Owner <span class="hint">Who answers for it; default: you</span></label>
<input type="text" id="accept-owner" name="owner" maxlength="200" value="${values.owner}"></div>
<div class="field"><label for="accept-expiry">Expires on <span class="hint">At the end of that day UTC, at most ${MAX_ACCEPTANCE_DAYS} days ahead</span></label>
<input type="date" id="accept-expiry" name="expiresOn" required value="${values.expiresOn}"></div>
<div class="actions"><button type="submit" class="primary">Accept the break</button></div>
</form>
</section>`;
}

const ACCEPT: ConsoleOperation = {
  method: "POST",
  path: "/admin/accepted-breaks",
  requiredScopes: ["contracts.write"],
};
const REVOKE: ConsoleOperation = {
  method: "POST",
  path: "/admin/accepted-breaks/revoke",
  requiredScopes: ["contracts.write"],
};

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

function projectOf(form: URLSearchParams): string {
  const project = String(form.get("project") ?? "");
  if (!isProjectName(project)) throw new Failure("invalid_input", "The form names no valid project.");
  return project;
}

/** The project page again, with what was wrong with the form (the page is the one the form was on). */
type ProjectPage = (context: ConsoleContext, project: string, notice: AcceptedBreaksNotice) => Promise<Response>;

export function acceptedBreakActions(projectPage: ProjectPage) {
  async function accept(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
    const values: AcceptFormValues = {
      fingerprint: String(form.get("fingerprint") ?? "").trim(),
      reason: String(form.get("reason") ?? ""),
      owner: String(form.get("owner") ?? "").trim(),
      expiresOn: String(form.get("expiresOn") ?? "").trim(),
    };
    const project = String(form.get("project") ?? "");
    const { result, correlationId } = await runGoverned(context, ACCEPT, { project, ...values }, () => ({
      async handler() {
        const parsed = acceptBreakRequest.safeParse({
          fingerprint: values.fingerprint,
          reason: values.reason,
          expiresAt: values.expiresOn,
          ...(values.owner ? { owner: values.owner } : {}),
        });
        if (!parsed.success)
          throw new Failure("invalid_input", `The break was not accepted: ${humaniseIssues(parsed.error)}`);
        return acceptBreak(context, projectOf(form), parsed.data);
      },
    }));
    if (result.ok)
      return withCorrelationId(
        seeOther(`/admin/projects/${encodeURIComponent(project)}?done=break-accepted#accepted-heading`),
        correlationId,
      );
    if (isFormProblem(result.failure) && isProjectName(project))
      return withCorrelationId(
        await projectPage(context, project, { error: result.failure.message, status: result.failure.status, values }),
        correlationId,
      );
    return failurePage(result.failure, correlationId);
  }

  async function revoke(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
    const project = String(form.get("project") ?? "");
    const id = String(form.get("id") ?? "");
    const { result, correlationId } = await runGoverned(context, REVOKE, { project, id }, () => ({
      handler: () => revokeAcceptedBreak(context, projectOf(form), id),
    }));
    if (result.ok)
      return withCorrelationId(
        seeOther(`/admin/projects/${encodeURIComponent(project)}?done=break-revoked#accepted-heading`),
        correlationId,
      );
    if (isFormProblem(result.failure) && isProjectName(project))
      return withCorrelationId(
        await projectPage(context, project, { error: result.failure.message, status: result.failure.status }),
        correlationId,
      );
    return failurePage(result.failure, correlationId);
  }

  return { "/admin/accepted-breaks": accept, "/admin/accepted-breaks/revoke": revoke };
}
