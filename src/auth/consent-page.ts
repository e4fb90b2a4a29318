/** The consent page (docs/consent-page.md of @cloudflare/workers-oauth-provider): every client value escaped. */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Policy } from "../policy/load";
import { html } from "../web/html";
import type { Identity } from "./identity";

export interface ConsentView {
  details: ConsentDescription;
  handle: string;
  identity: Identity;
  organizationName: string;
  /** Scopes the member's role may grant that the client asked for (checkboxes, ticked). */
  offered: readonly string[];
  /** Scopes the role may grant that the client did not ask for (checkboxes, unticked). */
  alsoGrantable: readonly string[];
  /** Scopes the client asked for that the member's role may not grant (listed, no checkbox). */
  refused: readonly string[];
  resourceLabel: string;
}

export function consentPage(view: ConsentView, policy: Policy) {
  const { details } = view;
  const describe = (scope: string) => policy.scopes[scope]?.description ?? scope;
  const checkbox = (scope: string, checked: boolean) => html`<label class="scope"><input type="checkbox" name="scope" value="${scope}" ${checked ? html`checked` : ""}>
<span><span class="scope-name">${scope}</span><br>${describe(scope)}</span></label>`;
  return html`<div class="card">
<h1>Allow <span id="client-name">${details.clientName}</span> to use Arbiter for you?</h1>
<p>${details.clientDomain
    ? html`Published by <strong id="client-domain">${details.clientDomain}</strong> (verified from its client metadata document).`
    : html`This app registered itself: its name is <strong>not verified</strong>.`}
 Access will be sent to <strong id="redirect-host">${details.redirectHost}</strong>.</p>
${details.redirectIsLoopback
    ? html`<p class="notice" id="loopback-warning" role="note"><strong>This sends access to an app on your computer.</strong> Continue only if you just started connecting from it yourself.</p>`
    : ""}
<p class="muted">Signed in as ${view.identity.name} (${view.organizationName}, role ${view.identity.role}). Access is for the ${view.resourceLabel}.</p>
<form method="post" action="/authorize">
<input type="hidden" name="handle" value="${view.handle}">
<fieldset>
<legend>Permissions to grant</legend>
${view.offered.length === 0 && view.alsoGrantable.length === 0 ? html`<p>No permissions are available to your role.</p>` : ""}
${view.offered.map((scope) => checkbox(scope, true))}
${view.alsoGrantable.map((scope) => checkbox(scope, false))}
</fieldset>
${view.refused.length > 0
    ? html`<p class="notice" role="note">Your role cannot grant: ${view.refused.map((s, i) => html`${i ? ", " : ""}<span class="scope-name">${s}</span>`)}. Ask an organization administrator if you need it.</p>`
    : ""}
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
</div>`;
}
