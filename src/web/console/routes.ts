/**
 * The organization admin console under /admin: server-rendered pages for administrators (role "admin") of
 * the signed-in member's organization. Pages are GET; every change is a POST form that passes the CSRF
 * checks (src/web/console/csrf.ts), then runs through the governed core (src/web/console/governed.ts: the
 * administrator's principal, the REST route's scope, exactly one audit record with the request's correlation id,
 * failures from the core's one table) and answers with a redirect back to its page, except key creation, whose answer shows the
 * new key once.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { outcomeForStatus } from "../../audit/http-outcome";
import { readUrlEncodedForm } from "../../lib/form";
import type { Env } from "../../env";
import { errorPage, html } from "../../lib/html";
import { auditPage } from "./audit.page";
import { clientsPage } from "./clients.page";
import { consoleContext, type ConsoleContext } from "./context";
import { CSRF_FIELD, csrfRefusal } from "./csrf";
import { CONSOLE_ACTIONS, type ConsoleAction } from "./actions";
import { failurePage, runGoverned, withCorrelationId } from "./governed";
import { keysPage } from "./keys.page";
import { ORGANIZATION_ACTIONS, ORGANIZATION_DONE_MESSAGES } from "./organization.actions";
import { organizationPage } from "./organization.page";
import { overviewPage } from "./overview.page";
import { projectsPage } from "./projects.page";
import { matchProjectRoute } from "./project-routes";
import { projectPage } from "./project.page";
import { acceptedBreakActions } from "./accepted-breaks";
import { usagePage } from "./usage.page";

/** Console forms are a few fields; anything larger is not one of them. */
const MAX_FORM_BYTES = 16 * 1024;

/** Messages shown after a redirect, by code (never text taken from the URL). */
const DONE_MESSAGES: Record<string, string> = {
  "grant-revoked": "The grant was revoked: its access and refresh tokens no longer work.",
  "key-revoked": "The CI key was revoked: the next request made with it is refused.",
  "key-already-revoked": "That CI key was already revoked.",
  ...ORGANIZATION_DONE_MESSAGES,
};

interface ConsolePage {
  /** The scopes of the REST equivalent (GET /api/v1/clients, /keys, /audit/events; contracts.read for projects). */
  requiredScopes: readonly string[];
  page(context: ConsoleContext): Promise<Response>;
}

/** Every page that reads organization data runs through the core with these scopes (src/web/console/governed.ts). */
const PAGES: Record<string, ConsolePage> = {
  "/admin": { requiredScopes: ["audit.read", "keys.admin", "clients.admin", "contracts.read"], page: overviewPage },
  "/admin/clients": {
    requiredScopes: ["clients.admin"],
    page: (context) => clientsPage(context, { done: doneMessage(context) }),
  },
  "/admin/keys": {
    requiredScopes: ["keys.admin", "contracts.read"],
    page: (context) => keysPage(context, { done: doneMessage(context) }),
  },
  "/admin/projects": { requiredScopes: ["contracts.read"], page: projectsPage },
  "/admin/audit": { requiredScopes: ["audit.read"], page: auditPage },
  "/admin/usage": { requiredScopes: ["keys.admin", "clients.admin"], page: usagePage },
  "/admin/organization": {
    requiredScopes: ["org.admin"],
    page: (context) => organizationPage(context, { done: doneMessage(context) }),
  },
};

/** The project pages (project-routes.ts) read contracts, snapshots and verdicts: GET /api/v1/projects/... needs contracts.read. */
const PROJECT_PAGE_SCOPES = ["contracts.read"] as const;

/** A page view as one governed operation: scope check, the page, one audit record (outcome from the page's status). */
async function governedPage(context: ConsoleContext, template: string, page: ConsolePage): Promise<Response> {
  const args = Object.fromEntries(context.url.searchParams);
  const { result, correlationId } = await runGoverned(
    context,
    { method: "GET", path: template, requiredScopes: page.requiredScopes },
    Object.keys(args).length ? { query: args } : undefined,
    () => ({
      handler: () => page.page(context),
      settle: (response) => ({
        outcome: outcomeForStatus(response.status),
        reason: response.ok ? "" : `HTTP ${response.status}`,
      }),
    }),
  );
  return result.ok ? withCorrelationId(result.value, correlationId) : failurePage(result.failure, correlationId);
}

const ACTIONS: Record<string, ConsoleAction> = {
  ...CONSOLE_ACTIONS,
  ...ORGANIZATION_ACTIONS,
  ...acceptedBreakActions(projectPage),
};

function doneMessage(context: ConsoleContext): string | undefined {
  const code = context.url.searchParams.get("done");
  return code && Object.hasOwn(DONE_MESSAGES, code) ? DONE_MESSAGES[code] : undefined;
}

interface ConsoleRoute {
  page: { template: string; page: ConsolePage } | undefined;
  action: ((context: ConsoleContext, form: URLSearchParams) => Promise<Response>) | undefined;
}

function routeOf(path: string): ConsoleRoute {
  if (Object.hasOwn(PAGES, path))
    return {
      page: { template: path, page: PAGES[path]! },
      action: Object.hasOwn(ACTIONS, path) ? ACTIONS[path] : undefined,
    };
  const project = matchProjectRoute(path);
  const page = project && {
    template: project.template,
    page: { requiredScopes: PROJECT_PAGE_SCOPES, page: project.page },
  };
  return { page, action: Object.hasOwn(ACTIONS, path) ? ACTIONS[path] : undefined };
}

/**
 * Serves /admin and /admin/...; `oauth` are the authorization server's helpers (grants, clients), `toolNames` the
 * tools this deployment offers (src/index.ts hands both over, so the console imports neither front).
 */
export async function handleConsole(
  request: Request,
  env: Env,
  oauth: OAuthHelpers,
  toolNames: () => readonly string[],
): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
  const route = routeOf(path);
  if (!route.page && !route.action)
    return errorPage(
      404,
      "Not found",
      "There is no such page in the admin console.",
      html`<p><a href="/admin">Admin console</a></p>`,
    );

  const access = await consoleContext(request, env, oauth, toolNames);
  if ("response" in access) return access.response;
  return serveConsole(access.context, path);
}

/** Answers a request of a signed-in administrator (`context`, from consoleContext) for a console `path`. */
export async function serveConsole(context: ConsoleContext, path: string): Promise<Response> {
  const { request, env } = context;
  const { page, action } = routeOf(path);
  if (request.method === "GET" || request.method === "HEAD") {
    if (page) return governedPage(context, page.template, page.page);
    return errorPage(
      405,
      "Method not allowed",
      "This address only accepts the form on its page.",
      html`<p><a href="/admin">Admin console</a></p>`,
    );
  }
  if (request.method !== "POST" || !action)
    return errorPage(
      405,
      "Method not allowed",
      "Use the forms of the admin console.",
      html`<p><a href="/admin">Admin console</a></p>`,
    );

  const read = await readUrlEncodedForm(request, MAX_FORM_BYTES);
  const form = read.ok ? read.form : undefined;
  if (!form)
    return errorPage(
      400,
      "Unreadable form",
      "The form could not be read. Reload the page and try again.",
      html`<p><a href="${path}">Back</a></p>`,
    );
  const refusal = await csrfRefusal(request, env, form.get(CSRF_FIELD));
  if (refusal)
    return errorPage(
      403,
      "Request refused",
      `${refusal} Nothing was changed. Reload the console page and try again.`,
      html`<p><a href="/admin">Admin console</a></p>`,
    );
  return action(context, form);
}
