/**
 * The console's three changes, each one governed operation (src/web/console/governed.ts) with the scope of its REST
 * equivalent: revoke a connected client's grant (DELETE /api/v1/clients/grants/:userId/:grantId, clients.admin),
 * create a CI key (POST /api/v1/keys, keys.admin) and revoke one (DELETE /api/v1/keys/:id, keys.admin). The shared
 * key and grant functions write the action's event with the core's correlation id, which is then the request's
 * one audit record; a refusal or a change that changes nothing gets the core's own record. This is the only console
 * file that calls those functions (test/node/layers.test.ts).
 */
import { Failure, kindForStatus } from "../../core/failure";
import { humaniseIssues } from "../../lib/humanise";
import { createCiKey, createCiKeyRequest, revokeCiKey, type CreateCiKeyRequest } from "../../oauth/cikey-admin";
import { CONSOLE_CLIENT_ID, revokeConnectedGrant } from "../../oauth/connected-clients";
import { clientsPage } from "./clients.page";
import type { ConsoleContext } from "./context";
import { failurePage, isFormProblem, runGoverned, withCorrelationId, type ConsoleOperation } from "./governed";
import { keysPage, type KeyFormValues } from "./keys.page";

export type ConsoleAction = (context: ConsoleContext, form: URLSearchParams) => Promise<Response>;

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

function administrator(context: ConsoleContext) {
  return {
    organizationId: context.organizationId,
    userId: context.admin.subject,
    role: context.admin.role,
    clientId: CONSOLE_CLIENT_ID,
  };
}

/** A shared function's refusal as the core's Failure (the same conversion as the REST routes'). */
function refusal(result: { status: number; code: string; message: string }, prefix = ""): Failure {
  return new Failure(kindForStatus(result.status), `${prefix}${result.message}`, {}, result.code);
}

// The scopes of the REST equivalents: DELETE /api/v1/clients/grants/:userId/:grantId, POST and DELETE /api/v1/keys.
const REVOKE_GRANT: ConsoleOperation = {
  method: "POST",
  path: "/admin/clients/revoke",
  requiredScopes: ["clients.admin"],
};
const CREATE_KEY: ConsoleOperation = { method: "POST", path: "/admin/keys", requiredScopes: ["keys.admin"] };
const REVOKE_KEY: ConsoleOperation = { method: "POST", path: "/admin/keys/revoke", requiredScopes: ["keys.admin"] };

async function revokeGrantAction(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
  const user = String(form.get("user") ?? "");
  const grant = String(form.get("grant") ?? "");
  const { result, correlationId } = await runGoverned(context, REVOKE_GRANT, { user, grant }, (correlationId) => ({
    async handler() {
      const revoked = await revokeConnectedGrant(
        context.env,
        context.oauth,
        administrator(context),
        user,
        grant,
        correlationId,
      );
      if (!revoked.ok) throw refusal(revoked);
      return revoked;
    },
    // The `revoke` event, written with this correlation id, is the action's one record.
    settle: () => null,
  }));
  if (result.ok) return withCorrelationId(seeOther("/admin/clients?done=grant-revoked"), correlationId);
  if (isFormProblem(result.failure))
    return withCorrelationId(
      await clientsPage(context, { error: result.failure.message, status: result.failure.status }),
      correlationId,
    );
  return failurePage(result.failure, correlationId);
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

/** The form's fields as the key request, or the invalid_input failure that says what to change. */
function keyRequest(values: KeyFormValues): CreateCiKeyRequest {
  const others = values.otherProjects
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const projects = values.allProjects ? ["*"] : [...new Set([...values.projects, ...others])];
  if (projects.length === 0) throw new Failure("invalid_input", "Choose at least one project, or All projects.");
  if (values.scopes.length === 0) throw new Failure("invalid_input", "Choose at least one scope.");
  if (values.expiresOn && !/^\d{4}-\d{2}-\d{2}$/.test(values.expiresOn))
    throw new Failure("invalid_input", "Expires on: give a date as YYYY-MM-DD, or leave it empty.");
  const parsed = createCiKeyRequest.safeParse({
    name: values.name,
    projects,
    scopes: values.scopes,
    ...(values.expiresOn ? { expiresAt: `${values.expiresOn}T00:00:00Z` } : {}),
  });
  if (!parsed.success) throw new Failure("invalid_input", `The key was not created: ${humaniseIssues(parsed.error)}`);
  return parsed.data;
}

async function createKeyAction(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
  const values = keyFormValues(form);
  const { result, correlationId } = await runGoverned(context, CREATE_KEY, values, (correlationId) => ({
    async handler() {
      const created = await createCiKey(context.env, administrator(context), keyRequest(values), correlationId);
      if (!created.ok) throw refusal(created, "The key was not created: ");
      return created;
    },
    // The `ci_key_created` event, written with this correlation id, is the action's one record.
    settle: () => null,
  }));
  if (result.ok)
    return withCorrelationId(
      await keysPage(context, { created: { key: result.value.key, secret: result.value.secret } }),
      correlationId,
    );
  if (isFormProblem(result.failure))
    return withCorrelationId(
      await keysPage(context, { values, status: result.failure.status, error: result.failure.message }),
      correlationId,
    );
  return failurePage(result.failure, correlationId);
}

async function revokeKeyAction(context: ConsoleContext, form: URLSearchParams): Promise<Response> {
  const id = String(form.get("id") ?? "");
  const { result, correlationId } = await runGoverned<Extract<Awaited<ReturnType<typeof revokeCiKey>>, { ok: true }>>(
    context,
    REVOKE_KEY,
    { id },
    (correlationId) => ({
      async handler() {
        const revoked = await revokeCiKey(context.env, administrator(context), id, correlationId);
        if (!revoked.ok) throw refusal(revoked);
        return revoked;
      },
      // A revocation records `ci_key_revoked` with this correlation id; a key already revoked changes nothing and
      // gets the core's own record instead.
      settle: (revoked) => (revoked.revokedNow ? null : { outcome: "ok", reason: "already revoked" }),
    }),
  );
  if (result.ok)
    return withCorrelationId(
      seeOther(result.value.revokedNow ? "/admin/keys?done=key-revoked" : "/admin/keys?done=key-already-revoked"),
      correlationId,
    );
  if (isFormProblem(result.failure))
    return withCorrelationId(
      await keysPage(context, { error: result.failure.message, status: result.failure.status }),
      correlationId,
    );
  return failurePage(result.failure, correlationId);
}

/** The console's forms, by the address they post to (every one has passed the CSRF checks of routes.ts). */
export const CONSOLE_ACTIONS: Record<string, ConsoleAction> = {
  "/admin/clients/revoke": revokeGrantAction,
  "/admin/keys": createKeyAction,
  "/admin/keys/revoke": revokeKeyAction,
};
