/**
 * DEVELOPMENT sign-in: pick one of the users in policies/dev-users.json. Enabled only when
 * ARBITER_DEV_SIGN_IN=true (npm start and the tests set it; the deploy configuration does not).
 */
import { readUrlEncodedForm, unreadableFormMessage } from "../lib/form";
import { getPolicy } from "../policy/load";
import { errorPage, html, htmlResponse } from "../lib/html";
import { safeReturnTo, type SignInCompletion, type SignInMethod } from "./identity";
import { requestingAppNote } from "./requesting-app-note";
import type { RequestingApp } from "./requesting-app";

export const devSignIn: SignInMethod = {
  id: "dev",
  label: "Development sign-in",
  async begin(_request, returnTo, app) {
    return htmlResponse("Development sign-in", devSignInForm(returnTo, app));
  },
  async complete(request): Promise<SignInCompletion> {
    const read = await readUrlEncodedForm(request);
    if (!read.ok)
      return {
        response: errorPage(
          400,
          "Unreadable sign-in",
          unreadableFormMessage(read.reason),
          html`<p><a href="/signin/dev">Back to sign-in</a></p>`,
        ),
      };
    const form = read.form;
    const key = String(form.get("user") ?? "");
    const returnTo = safeReturnTo(String(form.get("return") ?? "/"));
    const user = Object.hasOwn(getPolicy().devUsers, key) ? getPolicy().devUsers[key] : undefined;
    if (!user) {
      return {
        response: errorPage(
          400,
          "Unknown development user",
          "Choose one of the users listed on the development sign-in page.",
          html`<p><a href="/signin/dev?return=${encodeURIComponent(returnTo)}">Back to sign-in</a></p>`,
        ),
      };
    }
    return {
      identity: {
        subject: key,
        name: user.name,
        email: user.email,
        organizationId: user.organization,
        role: user.role,
        method: "dev",
      },
      returnTo,
    };
  },
};

export function devSignInForm(returnTo: string, app?: RequestingApp) {
  const policy = getPolicy();
  const users = Object.entries(policy.devUsers);
  return html`<div class="card">
<h1>Sign in</h1>
${requestingAppNote(app)}
<p class="dev" role="note">Development sign-in: for local use only. Anyone can pick any user here. A deployment turns this off and signs users in with the organization's OpenID Connect provider.</p>
<form method="post" action="/signin/dev">
<input type="hidden" name="return" value="${returnTo}">
<fieldset>
<legend>Sign in as</legend>
${users.map(
  (
    [key, user],
    index,
  ) => html`<label class="scope"><input type="radio" name="user" value="${key}" ${index === 0 ? html`checked` : ""}>
<span><strong>${user.name}</strong> <span class="muted">${user.email}</span><br><span class="muted">${policy.organizations[user.organization]?.name ?? user.organization}, role ${user.role}</span></span></label>`,
)}
</fieldset>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
</div>`;
}
