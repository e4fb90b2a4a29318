/**
 * Who may use the admin console and what every page gets: a signed-in member of an organization whose role
 * is "admin". Signed out: a GET goes to sign-in and comes back; anything else is refused. Another role: a
 * 403 page that says why. Everything a page shows or changes is scoped to `organizationId`, which comes from
 * the signed browser session only.
 */
import { resolveOrganization } from "../../directory/client";
import { organizationGrantable } from "../../directory/grantable";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Identity } from "../../auth/identity";
import { currentIdentity } from "../../auth/session";
import type { Principal } from "../../core/principal";
import type { Env } from "../../env";
import { CONSOLE_CLIENT_ID } from "../../oauth/connected-clients";
import { errorPage, html } from "../../lib/html";
import { csrfToken } from "./csrf";
import type { ConsoleFrame, ConsoleSection } from "./layout";

export const ADMIN_ROLE = "admin";

export interface ConsoleContext {
  request: Request;
  env: Env;
  url: URL;
  admin: Identity;
  /**
   * Who the governed core sees (src/web/console/governed.ts): the administrator of the session, the console's client
   * id, and the scopes their role may hold (organizations.json `grantable`), as an OAuth token of theirs could carry.
   */
  principal: Principal;
  organizationId: string;
  organizationName: string;
  /** The CSRF token of this session, for the forms of the page. */
  csrf: string;
  oauth: OAuthHelpers;
  /** The names of every tool this deployment offers (the rate-limit targets beside REST's), from the composition. */
  toolNames(): readonly string[];
  frame(title: string, section?: ConsoleSection): ConsoleFrame;
}

export async function consoleContext(
  request: Request,
  env: Env,
  oauth: OAuthHelpers,
  toolNames: () => readonly string[],
): Promise<{ context: ConsoleContext } | { response: Response }> {
  const url = new URL(request.url);
  const identity = await currentIdentity(request, env);
  if (!identity) {
    if (request.method === "GET" || request.method === "HEAD") {
      const back = `${url.pathname}${url.search}`;
      return {
        response: new Response(null, {
          status: 302,
          headers: { Location: `/signin?return=${encodeURIComponent(back)}`, "Cache-Control": "no-store" },
        }),
      };
    }
    return {
      response: errorPage(
        401,
        "Signed out",
        "Your session has ended. Sign in again and repeat the action.",
        html`<p><a href="/signin?return=%2Fadmin">Sign in</a></p>`,
      ),
    };
  }
  const organization = (await resolveOrganization(env, identity.organizationId))?.record.settings;
  if (identity.role !== ADMIN_ROLE || !organization) {
    return {
      response: errorPage(
        403,
        "Administrators only",
        `You are signed in as ${identity.name} with the role "${identity.role}" in ${organization?.name ?? identity.organizationId}. The admin console is for organization administrators (role "admin").`,
        html`<p>Ask an administrator of your organization if you need a change made. <a href="/signout">Sign out</a> to use another account.</p>`,
      ),
    };
  }
  const organizationName = organization.name;
  const principal: Principal = {
    organizationId: identity.organizationId,
    userId: identity.subject,
    clientId: CONSOLE_CLIENT_ID,
    role: identity.role,
    scopes: organizationGrantable(organization, identity.role),
  };
  return {
    context: {
      request,
      env,
      url,
      admin: identity,
      principal,
      organizationId: identity.organizationId,
      organizationName,
      csrf: await csrfToken(request, env),
      oauth,
      toolNames,
      frame: (title, section) => ({ title, section, admin: identity, organizationName }),
    },
  };
}
