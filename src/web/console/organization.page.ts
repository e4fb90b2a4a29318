/**
 * The organization page (/admin/organization, scope org.admin): its settings (name, e-mail domains, who may sign in,
 * its own sign-in provider, its orders API with a "Test connection" button, quotas), its write-only secrets (a
 * field to set a new value, never the value), its members with their roles, invitations, and the change log. The
 * forms post to src/web/console/organization.actions.ts, which call the directory's services like the REST routes.
 */
import {
  getOrganization,
  listInvitations,
  listMembers,
  organizationChanges,
  organizationLimits,
} from "../../organizations/admin";
import type { UpstreamTestResult } from "../../organizations/upstream-test";
import type { InvitationRecord } from "../../directory/settings";
import { getPolicy } from "../../policy/load";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, csrfInput, emptyState, flash, problem, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";

export interface OrganizationPageOptions {
  done?: string;
  error?: string;
  status?: number;
  /** The answer of "Test connection", shown at the upstream. */
  upstreamTest?: UpstreamTestResult;
  /** The link of an invitation just created: shown once. */
  invitationLink?: { email: string; link: string; expiresAt: string };
}

const field = (id: string, label: string, value: string | undefined, hint = "", type = "text") =>
  html`<div class="field"><label for="${id}">${label}${hint ? html` <span class="hint">${hint}</span>` : ""}</label>
<input type="${type}" id="${id}" name="${id}" value="${value ?? ""}"${type === "password" ? html` autocomplete="new-password"` : ""}></div>`;

function roleOptions(selected: string): SafeHtml {
  return html`${Object.keys(getPolicy().roles).map(
    (role) => html`<option value="${role}"${role === selected ? html` selected` : ""}>${role}</option>`,
  )}`;
}

function testResult(result: UpstreamTestResult | undefined): SafeHtml {
  if (!result) return html``;
  return result.ok
    ? html`<p role="status">${badge("ok", "connected")} ${result.endpoint ?? ""} answered HTTP ${result.status} in ${result.durationMs} ms${result.credentialSent ? " with the credential" : ""}.</p>`
    : html`<p role="alert">${badge("bad", "failed")} ${result.problem ?? "The test failed."}</p>`;
}

const count = (value: number) => value.toLocaleString("en-US");

/** Members shown per page of the Organization page, by e-mail. */
export const MEMBERS_PER_PAGE = 100;

function membersPager(after: string | null, nextAfter: string | null): SafeHtml | string {
  if (after === null && nextAfter === null) return "";
  return html`<nav class="pager" aria-label="Pages of members"><span class="muted">${MEMBERS_PER_PAGE} members per page, by e-mail.</span>${after !== null ? html`<a href="/admin/organization">First members</a>` : ""}${nextAfter !== null ? html`<a href="/admin/organization?membersAfter=${encodeURIComponent(nextAfter)}#members-heading">Next members</a>` : ""}</nav>`;
}

/** Change-log entries shown per page of the Organization page, newest first. */
export const CHANGES_SHOWN = 20;

/** Invitations shown per page of the Organization page, newest first. */
export const INVITATIONS_SHOWN = 20;

/** A list of the page paged newest first by `?<param>=<seq>` (a seq from the pager's own link). */
interface NewestFirstList {
  param: "changesBefore" | "invitationsBefore";
  heading: string;
  /** Plural noun: "changes", "invitations". */
  noun: string;
  shown: number;
}

const CHANGE_LOG: NewestFirstList = {
  param: "changesBefore",
  heading: "changes-heading",
  noun: "changes",
  shown: CHANGES_SHOWN,
};
const INVITATION_LIST: NewestFirstList = {
  param: "invitationsBefore",
  heading: "invitations-heading",
  noun: "invitations",
  shown: INVITATIONS_SHOWN,
};

function newestFirstPager(list: NewestFirstList, before: number | null, nextBefore: number | null): SafeHtml | string {
  if (before === null && nextBefore === null) return "";
  return html`<nav class="pager" aria-label="Pages of the ${list.noun}"><span class="muted">${list.shown} ${list.noun} per page, newest first.</span>${before !== null ? html`<a href="/admin/organization#${list.heading}">Newest ${list.noun}</a>` : ""}${nextBefore !== null ? html`<a href="/admin/organization?${list.param}=${nextBefore}#${list.heading}">Older ${list.noun}</a>` : ""}</nav>`;
}

/** The list's `?<param>=`: a seq from the pager's link; anything else shows the newest. */
function beforeOf(url: URL, list: NewestFirstList): number | null {
  const text = url.searchParams.get(list.param);
  return text !== null && /^[1-9]\d{0,14}$/.test(text) ? Number(text) : null;
}

function invitationRow(invitation: InvitationRecord, csrf: SafeHtml): SafeHtml {
  const { status } = invitation;
  const withdraw =
    status === "used"
      ? ""
      : html`<form class="inline" method="post" action="/admin/organization/invitation/withdraw">${csrf}<input type="hidden" name="id" value="${invitation.id}"><button type="submit" class="danger small" aria-label="Withdraw the invitation of ${invitation.email}">Withdraw</button></form>`;
  return html`<tr><td>${invitation.email}</td><td>${invitation.role}</td><td>${badge(status === "pending" ? "warn" : status === "used" ? "ok" : "neutral", status)}</td><td>${time(invitation.expiresAt)}</td><td>${withdraw}</td></tr>`;
}

export async function organizationPage(
  context: ConsoleContext,
  options: OrganizationPageOptions = {},
): Promise<Response> {
  const membersAfter = context.url.searchParams.get("membersAfter");
  const changesBefore = beforeOf(context.url, CHANGE_LOG);
  const invitationsBefore = beforeOf(context.url, INVITATION_LIST);
  const [record, limits, { members, nextAfter }, invitationPage, { changes, nextBefore }] = await Promise.all([
    getOrganization(context.env, context.organizationId),
    organizationLimits(context.env, context.organizationId),
    listMembers(context.env, context.organizationId, { limit: MEMBERS_PER_PAGE, after: membersAfter }),
    listInvitations(context.env, context.organizationId, { limit: INVITATIONS_SHOWN, before: invitationsBefore }),
    organizationChanges(context.env, context.organizationId, { limit: CHANGES_SHOWN, before: changesBefore }),
  ]);
  const { invitations } = invitationPage;
  const s = record.settings;
  const csrf = csrfInput(context.csrf);
  const quota = (name: "default" | "rest") => s.quotas?.[name];
  const body = html`<h1>Organization</h1>
<p class="lead">${s.name} (${code(record.id)}): ${badge(record.status === "active" ? "ok" : "bad", record.status)}, revision ${record.revision}. Changes apply to the next requests; other servers see them within 2 s.</p>
${flash(options.done)}${problem(options.error)}
<section class="card" aria-labelledby="settings-heading"><h2 id="settings-heading">Settings</h2>
<form method="post" action="/admin/organization/settings">${csrf}<input type="hidden" name="revision" value="${record.revision}">
${field("name", "Display name", s.name)}
${field("emailDomains", "E-mail domains", s.emailDomains.join(", "), "Comma-separated; each domain belongs to one organization")}
<label class="check"><input type="checkbox" name="membersOnly" value="true"${s.membersOnly ? html` checked` : ""}> Only people on the member list may sign in</label>
<div class="field"><label for="defaultRole">Default role</label><select id="defaultRole" name="defaultRole">${roleOptions(s.defaultRole)}</select></div>
<fieldset><legend>Sign-in provider (OpenID Connect)</legend>
${field("signInIssuer", "Issuer", s.signIn?.issuer, "Empty: no provider of your own")}
${field("signInClientId", "Client id", s.signIn?.clientId)}
${field("signInRoleClaim", "Role claim", s.signIn?.roleClaim, "Optional")}
<p class="muted">Register <code>${new URL("/signin/org/callback", context.env.PUBLIC_URL).href}</code> at the provider.</p></fieldset>
<fieldset><legend>Orders API (GraphQL)</legend>
${field("upstreamEndpoint", "Endpoint", s.upstream?.endpoint, "https; empty: the deployment's default")}
${field("upstreamCredentialHeader", "Credential header", s.upstream?.credentialHeader ?? "Authorization")}
${field("upstreamCredentialScheme", "Credential scheme", s.upstream?.credentialScheme, "e.g. Bearer; empty: the credential alone")}
${field("upstreamOrganizationHeader", "Organization header", s.upstream?.organizationHeader, "Optional, e.g. X-Organization-Id")}
</fieldset>
<fieldset><legend>Quotas per client</legend>
${field("quotaDefaultLimit", "Tool calls per window", quota("default")?.limit?.toString(), "Empty: the deployment's default", "number")}
${field("quotaDefaultWindow", "Window (seconds)", quota("default")?.windowSeconds?.toString(), "", "number")}
${field("quotaRestLimit", "REST requests per window", quota("rest")?.limit?.toString(), "", "number")}
${field("quotaRestWindow", "Window (seconds)", quota("rest")?.windowSeconds?.toString(), "", "number")}
</fieldset>
<div class="actions"><button type="submit" class="primary">Save settings</button></div>
</form></section>
<section class="card" aria-labelledby="secrets-heading"><h2 id="secrets-heading">Secrets</h2>
<p class="muted">Write-only: stored encrypted, never shown again. Provider client secret: ${record.secrets.signInClientSecret ? badge("ok", "set") : badge("neutral", "not set")}; orders API credential: ${record.secrets.upstreamCredential ? badge("ok", "set") : badge("neutral", "not set")}.</p>
<form method="post" action="/admin/organization/secret">${csrf}
<div class="field"><label for="secret-name">Secret</label><select id="secret-name" name="name"><option value="upstreamCredential">Orders API credential</option><option value="signInClientSecret">Provider client secret</option></select></div>
${field("value", "New value", "", "Empty clears it", "password")}
<div class="actions"><button type="submit">Set secret</button></div></form>
<form method="post" action="/admin/organization/upstream-test">${csrf}<div class="actions"><button type="submit">Test connection to the orders API</button></div></form>
${testResult(options.upstreamTest)}
</section>
<section aria-labelledby="members-heading"><h2 id="members-heading">Members</h2>
<p class="muted">${count(limits.members.active)} active of at most ${count(limits.members.max)}; ${count(limits.pendingInvitations.pending)} pending invitations of at most ${count(limits.pendingInvitations.max)}.</p>
${
  members.length === 0 && membersAfter === null
    ? emptyState("No members listed yet", "People appear here once they sign in, are added or accept an invitation.")
    : scrollTable(
        "Members",
        ["E-mail", "Role", "Status", "Since", "Change"],
        members.map(
          (
            m,
          ) => html`<tr><td>${m.email}</td><td>${m.role}</td><td>${badge(m.status === "active" ? "ok" : "neutral", m.status)}</td><td>${time(m.updatedAt)}</td>
<td><form class="inline" method="post" action="/admin/organization/member">${csrf}<input type="hidden" name="email" value="${m.email}"><select name="role" aria-label="Role of ${m.email}">${roleOptions(m.role)}</select> <button type="submit" class="small">Set role</button></form>
${m.status === "active" ? html`<form class="inline" method="post" action="/admin/organization/member/remove">${csrf}<input type="hidden" name="email" value="${m.email}"><button type="submit" class="danger small" aria-label="Remove ${m.email}">Remove</button></form>` : ""}</td></tr>`,
        ),
      )
}
${membersPager(membersAfter, nextAfter)}
<form method="post" action="/admin/organization/invite" class="card">${csrf}<h3>Invite someone</h3>
${field("inviteEmail", "E-mail", "", "", "email")}
<div class="field"><label for="inviteRole">Role</label><select id="inviteRole" name="role">${roleOptions(s.defaultRole)}</select></div>
<div class="actions"><button type="submit" class="primary">Create invitation link</button></div></form>
${
  options.invitationLink
    ? html`<section class="secret-box" aria-labelledby="invite-link"><h3 id="invite-link">Invitation for ${options.invitationLink.email}</h3>
<p><strong>Send this link now: it is not shown again.</strong> It works once, until ${time(options.invitationLink.expiresAt)}.</p><code>${options.invitationLink.link}</code></section>`
    : ""
}
${
  invitations.length || invitationsBefore !== null
    ? html`<h3 id="invitations-heading">Invitations</h3>${scrollTable(
        "Invitations",
        ["E-mail", "Role", "Status", "Expires", "Withdraw"],
        invitations.map((invitation) => invitationRow(invitation, csrf)),
      )}`
    : ""
}
${newestFirstPager(INVITATION_LIST, invitationsBefore, invitationPage.nextBefore)}</section>
<section aria-labelledby="changes-heading"><h2 id="changes-heading">Change log</h2>
${scrollTable(
  "Changes",
  ["When", "Who", "What"],
  changes.map((c) => html`<tr><td>${time(c.time)}</td><td>${c.actor}</td><td>${code(c.action)}</td></tr>`),
)}
${newestFirstPager(CHANGE_LOG, changesBefore, nextBefore)}</section>`;
  return consoleResponse(context.frame("Organization", "organization"), body, options.status ?? 200);
}
