/**
 * The organization admin console under /admin: server-rendered pages for administrators (role "admin") of
 * the signed-in member's organization. Pages are GET; every change is a POST form that passes the CSRF
 * checks (src/web/console/csrf.ts), leaves exactly one audit record (through the shared key and grant
 * functions) and answers with a redirect back to its page, except key creation, whose answer shows the
 * new key once.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { createCiKey, createCiKeyRequest, revokeCiKey } from "../../oauth/cikey-admin";
import { readUrlEncodedForm } from "../../lib/form";
import type { Env } from "../../env";
import { humaniseIssues } from "../../lib/humanise";
import { CONSOLE_CLIENT_ID, revokeConnectedGrant } from "../../oauth/connected-clients";
import { errorPage, html } from "../html";
import { auditPage } from "./audit.page";
import { clientsPage } from "./clients.page";
import { consoleContext, type ConsoleContext } from "./context";
import { CSRF_FIELD, csrfRefusal } from "./csrf";
import { keysPage, type KeyFormValues } from "./keys.page";
import { overviewPage } from "./overview.page";
import { projectsPage } from "./projects.page";
import { matchProjectRoute } from "./project-routes";
import { usagePage } from "./usage.page";

/** Console forms are a few fields; anything larger is not one of them. */
const MAX_FORM_BYTES = 16 * 1024;

/** Messages shown after a redirect, by code (never text taken from the URL). */
const DONE_MESSAGES: Record<string, string> = {
  "grant-revoked": "The grant was revoked: its access and refresh tokens no longer work.",
  "key-revoked": "The CI key was revoked: the next request made with it is refused.",
  "key-already-revoked": "That CI key was already revoked.",
};

const PAGES: Record<string, (context: ConsoleContext) => Promise<Response>> = {
  "/admin": overviewPage,
  "/admin/clients": (context) => clientsPage(context, { done: doneMessage(context) }),
  "/admin/keys": (context) => keysPage(context, { done: doneMessage(context) }),
  "/admin/projects": projectsPage,
  "/admin/audit": auditPage,
  "/admin/usage": usagePage,
};

const ACTIONS: Record<string, (context: ConsoleContext, form: URLSearchParams) => Promise<Response>> = {
  "/admin/clients/revoke": revokeGrantAction,
  "/admin/keys": createKeyAction,
  "/admin/keys/revoke": revokeKeyAction,
};

function doneMessage(context: ConsoleContext): string | undefined {
  const code = context.url.searchParams.get("done");
  return code && Object.hasOwn(DONE_MESSAGES, code) ? DONE_MESSAGES[code] : undefined;
}

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

function administrator(context: ConsoleContext) {
  return { organizationId: context.organizationId, userId: context.admin.subject, role: context.admin.role, clientId: CONSOLE_CLIENT_ID };
}

async function revokeGrantAction(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
  const result = await revokeConnectedGrant(context.env, context.oauth, administrator(context), String(form.get("user") ?? ""), String(form.get("grant") ?? ""));
  if (!result.ok) return clientsPage(context, { error: result.message, status: result.status });
  return seeOther("/admin/clients?done=grant-revoked");
}

function keyFormValues(form: URLSearchParams): KeyFormValues {
  const ticked = form.getAll("project").map(String);
  return {
    name: String(form.get("name") ?? ""),
    allProjects: ticked.includes("*"),
    projects: ticked.filter((p) => p !== "*"),
    otherProjects: String(form.get("otherProjects") ?? ""),
    scopes: form.getAll("scope").map(String),
    expiresOn: String(form.get("expiresOn") ?? "").trim(),
  };
}

async function createKeyAction(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
  const values = keyFormValues(form);
  const others = values.otherProjects.split(",").map((p) => p.trim()).filter(Boolean);
  const projects = values.allProjects ? ["*"] : [...new Set([...values.projects, ...others])];
  if (projects.length === 0) return keysPage(context, { values, status: 400, error: "Choose at least one project, or All projects." });
  if (values.scopes.length === 0) return keysPage(context, { values, status: 400, error: "Choose at least one scope." });
  if (values.expiresOn && !/^\d{4}-\d{2}-\d{2}$/.test(values.expiresOn)) return keysPage(context, { values, status: 400, error: "Expires on: give a date as YYYY-MM-DD, or leave it empty." });
  const parsed = createCiKeyRequest.safeParse({ name: values.name, projects, scopes: values.scopes, ...(values.expiresOn ? { expiresAt: `${values.expiresOn}T00:00:00Z` } : {}) });
  if (!parsed.success) return keysPage(context, { values, status: 400, error: `The key was not created: ${humaniseIssues(parsed.error)}` });
  const created = await createCiKey(context.env, administrator(context), parsed.data);
  if (!created.ok) return keysPage(context, { values, status: created.status, error: `The key was not created: ${created.message}` });
  return keysPage(context, { created: { key: created.key, secret: created.secret } });
}

async function revokeKeyAction(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
  const id = String(form.get("id") ?? "");
  const wasRevoked = await revokeCiKey(context.env, administrator(context), id);
  if (!wasRevoked.ok) return keysPage(context, { error: wasRevoked.message, status: wasRevoked.status });
  return seeOther(wasRevoked.revokedNow ? "/admin/keys?done=key-revoked" : "/admin/keys?done=key-already-revoked");
}

/**
 * Serves /admin and /admin/...; `oauth` are the authorization server's helpers (grants, clients), `toolNames` the
 * tools this deployment offers (src/index.ts hands both over, so the console imports neither front).
 */
export async function handleConsole(request: Request, env: Env, oauth: OAuthHelpers, toolNames: () => readonly string[]): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
  const page = Object.hasOwn(PAGES, path) ? PAGES[path] : matchProjectRoute(path);
  const action = Object.hasOwn(ACTIONS, path) ? ACTIONS[path] : undefined;
  if (!page && !action) return errorPage(404, "Not found", "There is no such page in the admin console.", html`<p><a href="/admin">Admin console</a></p>`);

  const access = await consoleContext(request, env, oauth, toolNames);
  if ("response" in access) return access.response;
  const { context } = access;

  if (request.method === "GET" || request.method === "HEAD") {
    if (page) return page(context);
    return errorPage(405, "Method not allowed", "This address only accepts the form on its page.", html`<p><a href="/admin">Admin console</a></p>`);
  }
  if (request.method !== "POST" || !action) return errorPage(405, "Method not allowed", "Use the forms of the admin console.", html`<p><a href="/admin">Admin console</a></p>`);

  const read = await readUrlEncodedForm(request, MAX_FORM_BYTES);
  const form = read.ok ? read.form : undefined;
  if (!form) return errorPage(400, "Unreadable form", "The form could not be read. Reload the page and try again.", html`<p><a href="${path}">Back</a></p>`);
  const refusal = await csrfRefusal(request, env, form.get(CSRF_FIELD));
  if (refusal) return errorPage(403, "Request refused", `${refusal} Nothing was changed. Reload the console page and try again.`, html`<p><a href="/admin">Admin console</a></p>`);
  return action(context, form);
}
