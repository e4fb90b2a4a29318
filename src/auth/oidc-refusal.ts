/** The refusal for a user the organization mapping cannot place: what the provider said and what to configure. */
import { html } from "../lib/html";
import type { ClaimSettings, OrganizationMapping } from "./oidc-mapping";
import { OidcFailure } from "./oidc-errors";

type Unplaced = Extract<OrganizationMapping, { ok: false }>;

export function mappingRefusal(mapping: Unplaced, settings: ClaimSettings): OidcFailure {
  const { facts } = mapping;
  const verified =
    facts.emailVerified === true
      ? "verified"
      : facts.emailVerified === false
        ? "not verified"
        : "verification not stated";
  const said = html`<ul>
${
  settings.orgClaim
    ? html`<li>Organization claim <code>${settings.orgClaim}</code>: ${facts.orgClaimValues.length ? facts.orgClaimValues.map((v, i) => html`${i ? ", " : ""}<code>${v}</code>`) : "not sent by the provider"}</li>`
    : html`<li>No organization claim is configured (OIDC_ORG_CLAIM is empty).</li>`
}
<li>E-mail: ${facts.email ? html`<code>${facts.email}</code> (${verified})` : "not sent by the provider"}</li>
</ul>`;

  if (mapping.reason === "own-provider") {
    const by = mapping.organizationFrom === "claim" ? "its organization claim" : "its e-mail domain";
    return new OidcFailure(
      "own-provider",
      `Your account belongs to the organization ${mapping.organizationId} (by ${by}), which signs its members in with its own identity provider, so this sign-in cannot admit you. Nobody was signed in.`,
      html`<p>What your identity provider said:</p>${said}<p>Start again from your app and choose <strong>Sign in with your organization's account (work e-mail)</strong>: your organization's provider decides who its members are.</p>`,
    );
  }

  if (mapping.reason === "several-organizations") {
    return new OidcFailure(
      "several-organizations",
      `Your account matches several organizations (${mapping.organizationIds.join(", ")}), and a member belongs to exactly one. Nobody was signed in.`,
      html`<p>What your identity provider said:</p>${said}<p>To fix it, the operator removes the overlap between these organizations' <code>claimValues</code> (<code>PATCH /operator/v1/organizations/{id}</code>; it applies without a redeploy).</p>`,
    );
  }

  const fixes = [];
  if (settings.orgClaim && facts.orgClaimValues.length) {
    fixes.push(html`<li>add one of the claim values above to the organization's <code>claimValues</code>;</li>`);
  } else if (!settings.orgClaim) {
    fixes.push(
      html`<li>set <code>OIDC_ORG_CLAIM</code> to the claim that names your organization and list its value in the organization's <code>claimValues</code>;</li>`,
    );
  } else {
    fixes.push(
      html`<li>have the identity provider send the <code>${settings.orgClaim}</code> claim for your account;</li>`,
    );
  }
  if (facts.emailDomain && facts.emailVerified !== false) {
    fixes.push(
      html`<li>or add the domain <code>${facts.emailDomain}</code> to the organization's <code>emailDomains</code>.</li>`,
    );
  } else if (facts.emailDomain) {
    fixes.push(
      html`<li>or verify your e-mail address at the identity provider (an unverified address's domain is never used).</li>`,
    );
  }
  return new OidcFailure(
    "no-organization",
    "Arbiter could not tell which organization you belong to, so it did not sign you in.",
    html`<p>What your identity provider said:</p>${said}<p>To let you in, the operator changes your organization's settings (<code>PATCH /operator/v1/organizations/{id}</code>; an administrator can add e-mail domains on the console's settings page), which applies without a redeploy:</p><ul>${fixes}</ul>`,
  );
}
