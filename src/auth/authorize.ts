/**
 * The authorization endpoint (/authorize): sign the member in, show consent limited to what their role may
 * grant, remember consent, complete the grant. The OAuth library validates the request, binds the consent
 * handle to the browser and keeps the request server-side; this module decides who and which scopes.
 */
import { readUrlEncodedForm, unreadableFormMessage } from "../lib/form";
import {
  AuthorizationError,
  authorizationErrorRedirect,
  CimdFetchError,
  type AuthRequest,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import { type Env, sessionSecret } from "../env";
import { getPolicy, type Policy, type ProtectedResourceName } from "../policy/load";
import { organizationGrantable } from "../directory/grantable";
import { resolveOrganization } from "../directory/client";
import type { OrganizationSettings } from "../directory/settings";
import { auditSinkFor } from "../audit/sink";
import { recordEvent } from "../core/governed";
import { errorPage, html, htmlHeaders, page } from "../lib/html";
import type { GrantProps } from "../oauth/grant-props";
import type { OAuthServers } from "../oauth/servers";
import {
  ACCESS_TOKEN_TTL_SECONDS,
  grantUserId,
  grantUserIdIsAmbiguous,
  REFRESH_TOKEN_TTL_SECONDS,
} from "../oauth/servers";
import { rememberGrantHolder } from "../oauth/grant-holders";
import { hasLiveGrant } from "../oauth/live-grant";
import { displayClientName, displayText } from "../oauth/client-display-name";
import { postedFromThisSite } from "./origin-guard";
import { consentPage } from "./consent-page";
import { invalidScopeDescription, unknownScopes } from "./unknown-scopes";
import type { Identity } from "./identity";
import { currentIdentity } from "./session";

function resourceName(servers: OAuthServers, request: AuthRequest): ProtectedResourceName {
  return request.resource === servers.apiResource ? "api" : "mcp";
}

/** Scopes the member may grant for this resource. */
function grantableFor(
  policy: Policy,
  identity: Identity,
  resource: ProtectedResourceName,
  organization: OrganizationSettings | undefined,
): string[] {
  return organizationGrantable(organization, identity.role).filter((scope) =>
    policy.scopes[scope]?.resources.includes(resource),
  );
}

/** The signed-in member's organization settings (role caps, display name), from the directory. */
async function organizationOf(env: Env, identity: Identity): Promise<OrganizationSettings | undefined> {
  return (await resolveOrganization(env, identity.organizationId))?.record.settings;
}

function renderAuthorizationError(error: unknown): Response {
  if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError) {
    return errorPage(
      400,
      "This sign-in link cannot be used",
      error.description,
      html`<p>Start connecting again from your app.</p>`,
    );
  }
  if (error instanceof CimdFetchError) {
    return errorPage(
      400,
      "This app could not be verified",
      "Its client metadata document could not be fetched or is invalid. Try again later or contact the app's publisher.",
    );
  }
  throw error;
}

/**
 * Whose grant /authorize makes, as the OAuth library records it. The library replaces the member's earlier grant of
 * the same client, found by the user id alone; when another organization's member could hold the same id
 * (grantUserIdIsAmbiguous), nothing is replaced: the earlier grant stays until it expires or is revoked, rather than
 * risk revoking someone else's.
 */
export function grantOwner(identity: { organizationId: string; subject: string }): {
  userId: string;
  metadata: { organizationId: string; subject: string };
  revokeExistingGrants: boolean;
} {
  const { organizationId, subject } = identity;
  return {
    userId: grantUserId(organizationId, subject),
    metadata: { organizationId, subject },
    revokeExistingGrants: !grantUserIdIsAmbiguous(organizationId, subject),
  };
}

async function complete(
  env: Env,
  oauth: OAuthHelpers,
  authRequest: AuthRequest,
  identity: Identity,
  scope: string[],
  headers: Headers,
): Promise<Response> {
  const props: GrantProps = {
    organizationId: identity.organizationId,
    userId: identity.subject,
    role: identity.role,
    name: identity.name,
  };
  // The library lists grants per user only: the console and the grant sweeps find the organization's users in this
  // index, so it is written first, and a grant it could not note is not made (the member tries again).
  if (!(await rememberGrantHolder(env, identity)))
    return errorPage(
      503,
      "Access was not granted",
      "The grant could not be recorded just now, so nothing was granted. Try connecting again in a moment.",
    );
  const { redirectTo } = await oauth.completeAuthorization({
    request: authRequest,
    ...grantOwner(identity),
    scope,
    props,
  });
  // Stored in the organization's audit trail (and logged); a storage failure never blocks the sign-in.
  await recordEvent(auditSinkFor(env), {
    caller: { organizationId: identity.organizationId, userId: identity.subject, clientId: authRequest.clientId },
    target: "grant",
    reason: `granted ${scope.join(" ") || "(no scopes)"}`,
  });
  headers.set("Location", redirectTo);
  headers.set("Cache-Control", "no-store");
  return new Response(null, { status: 302, headers });
}

export async function handleAuthorize(request: Request, env: Env, servers: OAuthServers): Promise<Response> {
  const oauth = servers.authorizationServer.getOAuthApi(env);
  const policy = getPolicy();
  try {
    if (request.method === "GET") {
      const authRequest = await oauth.parseAuthRequest(request);
      // Before sign-in: a scope the catalogue does not define is the client's mistake, not the member's to
      // approve. The redirect URI is the registered one parseAuthRequest has just validated.
      const unknown = unknownScopes(authRequest.scope, policy.scopeNames);
      if (unknown.length > 0) {
        const location = authorizationErrorRedirect(authRequest, "invalid_scope", invalidScopeDescription(unknown));
        return new Response(null, { status: 302, headers: { Location: location, "Cache-Control": "no-store" } });
      }
      const identity = await currentIdentity(request, env);
      if (!identity) {
        const url = new URL(request.url);
        return new Response(null, {
          status: 302,
          headers: {
            Location: `/signin?return=${encodeURIComponent(url.pathname + url.search)}`,
            "Cache-Control": "no-store",
          },
        });
      }
      const resource = resourceName(servers, authRequest);
      const organization = await organizationOf(env, identity);
      const grantable = grantableFor(policy, identity, resource, organization);
      const requested = authRequest.scope.length > 0 ? authRequest.scope : [...policy.baseline[resource]];
      const offered = requested.filter((scope) => grantable.includes(scope));
      const refused = requested.filter((scope) => !grantable.includes(scope));
      const remember = { secret: sessionSecret(env), subject: grantUserId(identity.organizationId, identity.subject) };

      if (
        refused.length === 0 &&
        (await oauth.isConsentRemembered(request, authRequest, remember)) &&
        (await hasLiveGrant(oauth, identity.organizationId, identity.subject, authRequest.clientId))
      ) {
        return complete(env, oauth, authRequest, identity, offered, new Headers());
      }

      // Everything else the role may grant here, unticked: one page instead of one per step-up. offline_access
      // stays the client's to ask for (only a client that stores refresh tokens benefits from one).
      const alsoGrantable = grantable.filter((scope) => !requested.includes(scope) && scope !== "offline_access");
      const here = new URL(request.url);
      const switchAccountHref = `/signout?return=${encodeURIComponent(here.pathname + here.search)}`;
      const described = await oauth.describeConsent(authRequest);
      const details = {
        ...described,
        clientName: displayClientName(described.clientName) ?? displayText(described.clientId),
      };
      const consent = await oauth.beginConsent(authRequest);
      const body = consentPage(
        {
          details,
          handle: consent.handle,
          identity,
          organizationName: organization?.name ?? identity.organizationId,
          offered,
          alsoGrantable,
          refused,
          resourceLabel: resource === "mcp" ? "MCP server (/mcp)" : "REST API (/api, /chat)",
          switchAccountHref,
          lifetime: { accessTokenSeconds: ACCESS_TOKEN_TTL_SECONDS, refreshTokenSeconds: REFRESH_TOKEN_TTL_SECONDS },
        },
        policy,
      );
      const headers = htmlHeaders(consent.headers);
      return new Response(page(`Authorize ${details.clientName}`, body), { status: 200, headers });
    }

    if (request.method === "POST") {
      // A page on another site could post this form in a signed-in browser; the consent handle's binding
      // cookie alone would ride along. Only this deployment's own consent page may answer.
      if (!postedFromThisSite(request, env)) {
        return errorPage(
          403,
          "Approval refused",
          "This answer to a consent page was sent from another site, so nothing was granted or denied. Start connecting again from your app.",
        );
      }
      const identity = await currentIdentity(request, env);
      if (!identity)
        return errorPage(
          401,
          "Signed out",
          "Your session ended before you answered. Start connecting again from your app.",
        );
      const read = await readUrlEncodedForm(request);
      if (!read.ok)
        return errorPage(
          400,
          "Unreadable answer",
          `${unreadableFormMessage(read.reason)} Nothing was granted or denied.`,
        );
      const form = read.form;
      const handle = String(form.get("handle") ?? "");
      if (form.get("decision") !== "approve") {
        const denied = await oauth.denyConsent(request, handle);
        denied.headers.set("Location", denied.redirectTo);
        return new Response(null, { status: 302, headers: denied.headers });
      }
      const ticked = form.getAll("scope").map(String);
      // Never more than the role may grant, whatever the form says.
      const organization = await organizationOf(env, identity);
      const allGrantable = organizationGrantable(organization, identity.role);
      const chosen = ticked.filter((scope) => allGrantable.includes(scope));
      const remember = { secret: sessionSecret(env), subject: grantUserId(identity.organizationId, identity.subject) };
      const approved = await oauth.approveConsent(request, handle, { scope: chosen, remember });
      const resource = resourceName(servers, approved.request);
      const granted = approved.request.scope.filter((scope) =>
        grantableFor(policy, identity, resource, organization).includes(scope),
      );
      return complete(env, oauth, approved.request, identity, granted, approved.headers);
    }
    return errorPage(405, "Method not allowed", "Open this page from your app's connect button.");
  } catch (error) {
    return renderAuthorizationError(error);
  }
}
