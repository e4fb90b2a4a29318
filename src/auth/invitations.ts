/**
 * Invitation links, `/invitations/<token>`: an organization administrator invites an e-mail address with a role
 * (POST /api/v1/organization/invitations); the person opens the link, sees which organization and role, and accepts.
 * Accepting needs them signed in with the invited address: already signed in, it is used at once; otherwise the link
 * is kept in a short-lived sealed cookie and used by the sign-in that follows (src/auth/routes.ts), before the
 * directory's admission, so an organization that admits members only lets them in. Single use, 7 days, by the
 * invited person only; each refusal says which of these failed.
 */
import { invitationHash } from "../organizations/admin";
import { directoryStub, organizationChanged } from "../directory/client";
import { type Env, sessionSecret } from "../env";
import { readCookie } from "../lib/cookies";
import { openSealed, sealValue } from "../lib/sealed";
import { errorPage, html, htmlResponse } from "../lib/html";
import { postedFromThisSite } from "./origin-guard";
import type { Identity } from "./identity";
import { currentIdentity } from "./session";

export const INVITATION_COOKIE = "__Host-arbiter-invitation";
const COOKIE_SECONDS = 1800;
const PURPOSE = "arbiter-invitation";
export const ACCEPTED_PATH = "/invitations/accepted";

function tokenOf(path: string): string | undefined {
  const token = /^\/invitations\/([A-Za-z0-9_-]{20,100})$/.exec(path)?.[1];
  return token;
}

/** The invitation a sign-in carries (its cookie), if any. */
export async function pendingInvitation(request: Request, env: Env): Promise<string | undefined> {
  const sealed = readCookie(request, INVITATION_COOKIE);
  if (!sealed) return undefined;
  const opened = await openSealed(sealed, { purpose: PURPOSE, secret: sessionSecret(env) });
  return typeof opened?.token === "string" ? opened.token : undefined;
}

export function clearInvitationCookie(): string {
  return `${INVITATION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/** Uses the invitation for `identity`; a page saying why not, or undefined when it is now a member. */
export async function acceptFor(env: Env, token: string, identity: Identity): Promise<Response | undefined> {
  const accepted = await directoryStub(env).acceptInvitation(await invitationHash(token), {
    organizationId: identity.organizationId,
    email: identity.email ?? null,
    subject: identity.subject,
  });
  if (!accepted.ok) {
    const status =
      accepted.code === "unknown_invitation" ? 404 : accepted.code === "invitation_wrong_person" ? 403 : 409;
    const unverified =
      accepted.code === "invitation_wrong_person" && identity.emailUnverified
        ? " Your identity provider marks your e-mail address as not verified, and an invitation is used only by a verified address: verify it at your provider, then open the link again."
        : "";
    return errorPage(status, "Invitation not accepted", `${accepted.message}${unverified}`);
  }
  await organizationChanged(env, accepted.organizationId);
  return undefined;
}

/** Handles /invitations/<token> (GET: what it offers; POST: accept) and /invitations/accepted; undefined otherwise. */
export async function handleInvitationRoutes(request: Request, env: Env): Promise<Response | undefined> {
  const path = new URL(request.url).pathname;
  if (path === ACCEPTED_PATH) {
    const identity = await currentIdentity(request, env);
    if (!identity) return errorPage(401, "Signed out", "Sign in to see your membership.");
    return htmlResponse(
      "Invitation accepted",
      html`<div class="card"><h1>Welcome</h1><p>You are a member of your organization with the role <strong>${identity.role}</strong>. Connect your AI assistant to <code>${new URL("/mcp", env.PUBLIC_URL).href}</code> to use it.</p></div>`,
    );
  }
  if (!path.startsWith("/invitations/")) return undefined;
  const token = tokenOf(path);
  if (!token) return errorPage(404, "Invitation not found", "This invitation link is not valid: ask for a new one.");
  const preview = await directoryStub(env).invitationPreview(await invitationHash(token));
  if (!preview.ok) return errorPage(404, "Invitation not found", preview.message);
  const { invitation, organizationName } = preview;
  if (invitation.status !== "pending")
    return errorPage(
      409,
      invitation.status === "used" ? "Invitation already used" : "Invitation expired",
      invitation.status === "used"
        ? "This invitation was already used. Ask the organization's administrator for a new one."
        : `This invitation expired on ${invitation.expiresAt}. Ask the organization's administrator for a new one.`,
    );

  if (request.method === "GET")
    return htmlResponse(
      "Invitation",
      html`<div class="card"><h1>Join ${organizationName}</h1>
<p>${invitation.email} is invited to ${organizationName} with the role <strong>${invitation.role}</strong>. The invitation works once, until ${invitation.expiresAt}.</p>
<form method="post" action="${path}"><div class="actions"><button class="primary" type="submit">Accept and sign in</button></div></form></div>`,
    );
  if (request.method !== "POST") return errorPage(405, "Method not allowed", "Open the invitation link.");
  if (!postedFromThisSite(request, env))
    return errorPage(403, "Invitation not accepted", "The form was posted from another site.");

  const identity = await currentIdentity(request, env);
  if (identity) {
    const refused = await acceptFor(env, token, identity);
    return refused ?? new Response(null, { status: 303, headers: { Location: ACCEPTED_PATH } });
  }
  const sealed = await sealValue({ token }, { purpose: PURPOSE, secret: sessionSecret(env) }, COOKIE_SECONDS);
  return new Response(null, {
    status: 303,
    headers: {
      Location: `/signin?return=${encodeURIComponent(ACCEPTED_PATH)}`,
      "Set-Cookie": `${INVITATION_COOKIE}=${sealed}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${COOKIE_SECONDS}`,
      "Cache-Control": "no-store",
    },
  });
}
