/** Sign-in and sign-out routes, shared by every sign-in method. */
import { type Env, sessionSecret } from "../env";
import { errorPage, html, htmlResponse } from "../lib/html";
import { type Identity, safeReturnTo, type SignInMethod } from "./identity";
import { directoryStub } from "../directory/client";
import { signInMethods } from "./methods";
import { acceptFor, clearInvitationCookie, pendingInvitation } from "./invitations";
import { requestingApp, type ClientLookup } from "./requesting-app";
import { requestingAppNote } from "./requesting-app-note";
import { clearSessionCookie, sealSession, sessionCookie } from "./session";

/** A form post from this deployment's own pages (its public origin, or the origin the request arrived on). */
function sameOrigin(request: Request, env: Env): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return request.headers.get("sec-fetch-site") !== "cross-site";
  return origin === new URL(env.PUBLIC_URL).origin || origin === new URL(request.url).origin;
}

/** The directory's refusal, with why the member list could not match someone whose address is unverified. */
function refusalMessage(admission: { reason: string; message: string }, identity: Identity): string {
  if (admission.reason !== "not-a-member" || !identity.emailUnverified) return admission.message;
  return `${admission.message} Your identity provider marks your e-mail address as not verified, and Arbiter matches only verified addresses against the member list: verify it at your provider, then sign in again.`;
}

async function finish(method: SignInMethod, request: Request, env: Env): Promise<Response> {
  const completion = await method.complete(request);
  if ("response" in completion) return completion.response;
  const { identity } = completion;
  // An invitation link opened before signing in is used now, before admission: it is what makes them a member.
  const invitation = await pendingInvitation(request, env);
  if (invitation) {
    const refused = await acceptFor(env, invitation, identity);
    if (refused) {
      refused.headers.append("Set-Cookie", clearInvitationCookie());
      return refused;
    }
  }
  // The directory has the last word: a removed member is refused, a listed one gets their listed role.
  const admission = await directoryStub(env).admit(
    identity.organizationId,
    identity.email ?? null,
    identity.subject,
    identity.role,
  );
  if (!admission.ok) return errorPage(403, "Sign-in refused", refusalMessage(admission, identity));
  identity.role = admission.role;
  const sealed = await sealSession(identity, sessionSecret(env));
  const headers = new Headers({
    Location: completion.returnTo,
    "Set-Cookie": sessionCookie(sealed),
    "Cache-Control": "no-store",
  });
  for (const cookie of completion.cookies ?? []) headers.append("Set-Cookie", cookie);
  if (invitation) headers.append("Set-Cookie", clearInvitationCookie());
  return new Response(null, { status: 303, headers });
}

/**
 * Handles /signin, /signin/<method>, /signin/<method>/callback and /signout; undefined for other paths.
 * `lookupClient` (the authorization server's) lets the sign-in page name the application that asked.
 */
export async function handleSignInRoutes(
  request: Request,
  env: Env,
  lookupClient?: ClientLookup,
): Promise<Response | undefined> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === "/signout") {
    // With ?return= (the consent page's "Not you?"), sign in again and come back to the same request.
    const back = url.searchParams.get("return");
    const location = back ? `/signin?return=${encodeURIComponent(safeReturnTo(back))}` : "/";
    return new Response(null, {
      status: 303,
      headers: { Location: location, "Set-Cookie": clearSessionCookie(), "Cache-Control": "no-store" },
    });
  }
  if (path !== "/signin" && !path.startsWith("/signin/")) return undefined;
  const methods = await signInMethods(env);
  const returnTo = safeReturnTo(url.searchParams.get("return"));

  if (path === "/signin") {
    if (methods.length === 0) {
      return errorPage(
        503,
        "Sign-in is not configured",
        "This deployment has no sign-in method. The operator sets OIDC_ISSUER, OIDC_CLIENT_ID and the OIDC_CLIENT_SECRET secret (see docs/operations.md, 'Sign-in with OpenID Connect').",
      );
    }
    if (methods.length === 1 && methods[0])
      return methods[0].begin(request, returnTo, await requestingApp(returnTo, lookupClient));
    return new Response(null, {
      status: 302,
      headers: { Location: `/signin/choose?return=${encodeURIComponent(returnTo)}` },
    });
  }

  if (path === "/signin/choose") {
    return htmlResponse(
      "Sign in",
      html`<div class="card"><h1>Sign in to Arbiter</h1>${requestingAppNote(await requestingApp(returnTo, lookupClient))}<ul>${methods.map((m) => html`<li><a href="/signin/${m.id}?return=${encodeURIComponent(returnTo)}">${m.label}</a></li>`)}</ul></div>`,
    );
  }

  const [, , id, step] = path.split("/");
  const method = methods.find((m) => m.id === id);
  if (!method)
    return errorPage(
      404,
      "Unknown sign-in method",
      "That sign-in method is not enabled on this deployment.",
      html`<p><a href="/signin">Choose a sign-in method</a></p>`,
    );

  if (request.method === "GET" && step === undefined)
    return method.begin(request, returnTo, await requestingApp(returnTo, lookupClient));
  if (request.method === "POST" && step === undefined) {
    if (!sameOrigin(request, env))
      return errorPage(403, "Sign-in refused", "The sign-in form was posted from another site.");
    return finish(method, request, env);
  }
  if (request.method === "GET" && step === "callback") return finish(method, request, env);
  return errorPage(405, "Method not allowed", "Use the sign-in page.");
}
