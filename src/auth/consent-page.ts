/** The consent page (docs/consent-page.md of @cloudflare/workers-oauth-provider): every client value escaped. */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Policy } from "../policy/load";
import { html, type SafeHtml } from "../lib/html";
import type { Identity } from "./identity";

export interface ConsentView {
  details: ConsentDescription;
  handle: string;
  identity: Identity;
  organizationName: string;
  /** Scopes the member's role may grant that the client asked for (ticked, unless sensitive). */
  offered: readonly string[];
  /**
   * Scopes the role may grant for this resource that the client did not ask for (never ticked). Offered on the
   * first page so a member can grant what their tools will need at once instead of meeting one consent page
   * per step-up.
   */
  alsoGrantable: readonly string[];
  /** Scopes the client asked for that the member's role may not grant (listed, no checkbox). */
  refused: readonly string[];
  resourceLabel: string;
  /** Signs the member out and back in to this same authorization request ("Not you?"). */
  switchAccountHref: string;
  lifetime: { accessTokenSeconds: number; refreshTokenSeconds: number };
}

function duration(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} ${seconds === 86400 ? "day" : "days"}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} ${seconds === 3600 ? "hour" : "hours"}`;
  return `${Math.round(seconds / 60)} minutes`;
}

export function consentPage(view: ConsentView, policy: Policy) {
  const { details } = view;
  const describe = (scope: string) => policy.scopes[scope]?.description ?? scope;
  // Sensitive scopes (personal data, writes, administration; policies/scopes.json) are never ticked for the
  // member: granting one is a decision they make by ticking it, with the reason in front of them.
  const checkbox = (scope: string, requested: boolean): SafeHtml => {
    const sensitive = policy.scopes[scope]?.sensitive;
    const id = `why-${scope}`;
    return html`<label class="scope"><input type="checkbox" name="scope" value="${scope}"${requested ? html` data-requested` : ""}${requested && !sensitive ? html` checked` : ""}${sensitive ? html` aria-describedby="${id}"` : ""}>
<span><span class="scope-name">${scope}</span>${sensitive ? html` <span class="badge-sensitive">sensitive</span>` : ""}<br>${describe(scope)}${
      sensitive
        ? html`<br><span class="why" id="${id}">Sensitive: ${sensitive}. Not ticked for you: tick it only if this app needs it.</span>`
        : ""
    }</span></label>`;
  };
  const offline = view.offered.includes("offline_access");
  const access = duration(view.lifetime.accessTokenSeconds);
  return html`<div class="card">
<h1>Allow <span id="client-name">${details.clientName}</span> to use Arbiter for you?</h1>
<p>${
    details.clientDomain
      ? html`Published by <strong id="client-domain">${details.clientDomain}</strong> (verified from its client metadata document).`
      : html`This app registered itself: its name is <strong>not verified</strong>.`
  }
 Access will be sent to <strong id="redirect-host">${details.redirectHost}</strong>.</p>
${
  details.redirectIsLoopback
    ? html`<p class="notice" id="loopback-warning" role="note"><strong>This sends access to an app on your computer.</strong> Continue only if you just started connecting from it yourself.</p>`
    : ""
}
<p class="muted">Signed in as ${view.identity.name} (${view.organizationName}, role ${view.identity.role}). Access is for the ${view.resourceLabel}. <a id="switch-account" href="${view.switchAccountHref}">Not you? Sign in as someone else</a></p>
<form method="post" action="/authorize">
<input type="hidden" name="handle" value="${view.handle}">
<fieldset>
<legend>Permissions this app asks for</legend>
${view.offered.length === 0 ? html`<p>${view.alsoGrantable.length === 0 ? "No permissions are available to your role." : "None that your role may grant."}</p>` : ""}
${view.offered.map((scope) => checkbox(scope, true))}
</fieldset>
${
  view.alsoGrantable.length > 0
    ? html`<fieldset>
<legend>More permissions your role may grant</legend>
<p class="hint" id="more-hint">Not asked for yet. Tools of this app may need them later; tick them now and it will not have to send you back here for each one.</p>
${view.alsoGrantable.map((scope) => checkbox(scope, false))}
</fieldset>`
    : ""
}
${
  view.refused.length > 0
    ? html`<p class="notice" role="note">Your role cannot grant: ${view.refused.map((s, i) => html`${i ? ", " : ""}<span class="scope-name">${s}</span>`)}. Ask an organization administrator if you need it.</p>`
    : ""
}
<p id="grant-lifetime"><strong>How long:</strong> each access token lasts ${access}. ${
    offline
      ? `With offline_access the app also gets a refresh token and stays connected for up to ${duration(view.lifetime.refreshTokenSeconds)} without asking you again.`
      : `No refresh token is issued (the app did not ask for offline_access): access ends after ${access} and the app must ask you again.`
  } An administrator of your organization can revoke it at any time.</p>
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
</div>`;
}
