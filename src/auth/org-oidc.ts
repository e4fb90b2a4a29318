/**
 * Sign-in at an organization's own OpenID Connect provider (its `signIn` settings in the directory): the person
 * types their work e-mail, its domain names the organization, and Arbiter sends them to that organization's
 * provider (authorization code + PKCE, the same flow as the platform provider's, src/auth/oidc.ts). Someone signed
 * in by an organization's provider belongs to that organization only, whatever their claims say: one organization's
 * provider can never sign anyone into another. Register `${PUBLIC_URL}/signin/org/callback` at the provider.
 */
import type { Env } from "../env";
import { directoryStub, resolveOrganization } from "../directory/client";
import { readUrlEncodedForm, unreadableFormMessage } from "../lib/form";
import { getPolicy } from "../policy/load";
import { errorPage, html, htmlResponse } from "../lib/html";
import { safeReturnTo, type SignInCompletion, type SignInMethod } from "./identity";
import { beginAt, completeWith, type CallbackSettings } from "./oidc";
import { claimStrings, emailDomainOf } from "./oidc-mapping";
import { ORGANIZATION_PROVIDER_SETTINGS, type OidcConfig } from "./oidc-config";
import { OidcFailure } from "./oidc-errors";
import { requestingAppNote } from "./requesting-app-note";
import type { RequestingApp } from "./requesting-app";

export const ORG_CALLBACK_PATH = "/signin/org/callback";

/** The provider settings of an organization, with its client secret; an OidcFailure when it has none or is inactive. */
async function organizationConfig(env: Env, organizationId: string): Promise<OidcConfig> {
  const resolved = await resolveOrganization(env, organizationId);
  const signIn = resolved?.record.settings.signIn;
  if (resolved?.record.status !== "active" || !signIn)
    throw new OidcFailure(
      "configuration",
      "This organization does not sign in with its own identity provider on this deployment (any more). Ask its administrator.",
    );
  const clientSecret = resolved.record.secrets.signInClientSecret
    ? await directoryStub(env).signInClientSecret(organizationId)
    : null;
  return {
    names: ORGANIZATION_PROVIDER_SETTINGS,
    issuer: signIn.issuer,
    clientId: signIn.clientId,
    scopes: signIn.scopes,
    redirectUri: new URL(ORG_CALLBACK_PATH, env.PUBLIC_URL).href,
    ...(clientSecret ? { clientSecret } : {}),
    ...(signIn.roleClaim ? { roleClaim: signIn.roleClaim } : {}),
  };
}

/** The callback settings of an attempt at `organizationId`'s provider. */
export async function organizationCallback(env: Env, organizationId: string): Promise<CallbackSettings> {
  const config = await organizationConfig(env, organizationId);
  const resolved = await resolveOrganization(env, organizationId);
  const defaultRole = resolved?.record.settings.defaultRole ?? "member";
  const roles = getPolicy().roles;
  return {
    config,
    async organizationOf(claims) {
      const fromClaim = config.roleClaim
        ? claimStrings(claims[config.roleClaim]).find((value) => Object.hasOwn(roles, value))
        : undefined;
      return {
        ok: true,
        organizationId,
        role: fromClaim ?? defaultRole,
        organizationFrom: "organization-provider",
        roleFrom: fromClaim ? "claim" : "default",
      };
    },
  };
}

function emailForm(returnTo: string, app?: RequestingApp, problem?: string) {
  return html`<div class="card">
<h1>Sign in with your organization</h1>
${requestingAppNote(app)}
${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
<form method="post" action="/signin/org">
<input type="hidden" name="return" value="${returnTo}">
<label for="email">Your work e-mail</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<p class="muted">Arbiter sends you to your organization's sign-in page.</p>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>
</div>`;
}

async function startFromEmail(env: Env, request: Request): Promise<SignInCompletion> {
  const read = await readUrlEncodedForm(request);
  if (!read.ok) return { response: errorPage(400, "Unreadable sign-in", unreadableFormMessage(read.reason)) };
  const returnTo = safeReturnTo(String(read.form.get("return") ?? "/"));
  const email = String(read.form.get("email") ?? "").trim();
  const domain = emailDomainOf(email);
  const again = (status: number, problem: string) => ({
    response: htmlResponse("Sign in", emailForm(returnTo, undefined, problem), { status }),
  });
  if (!domain) return again(400, "Type your e-mail address, such as ana@example.com.");
  const organizationId = await directoryStub(env).organizationForDomain(domain);
  if (!organizationId) return again(404, `No organization on this deployment uses ${domain} for sign-in.`);
  const resolved = await resolveOrganization(env, organizationId);
  if (!resolved?.record.settings.signIn || resolved.record.status !== "active")
    return again(
      409,
      `The organization of ${domain} does not sign in with its own identity provider here. Use another sign-in method.`,
    );
  try {
    return { response: await beginAt(env, await organizationConfig(env, organizationId), returnTo, organizationId) };
  } catch (error) {
    if (error instanceof OidcFailure) return again(502, error.message);
    throw error;
  }
}

/** Sign-in at organizations' own providers: an e-mail form (GET), its post, and the provider's callback. */
export function organizationSignIn(env: Env): SignInMethod {
  return {
    id: "org",
    label: "Sign in with your organization's account (work e-mail)",
    begin: async (_request, returnTo, app) => htmlResponse("Sign in", emailForm(returnTo, app)),
    complete: (request) =>
      request.method === "POST"
        ? startFromEmail(env, request)
        : completeWith(env, request, async (flow) => {
            if (!flow.organizationId)
              throw new OidcFailure(
                "flow-expired",
                "This sign-in did not start at an organization's provider. Start again from your app.",
              );
            return organizationCallback(env, flow.organizationId);
          }),
  };
}
