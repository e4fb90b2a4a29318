/**
 * The organization page's forms, each one governed operation with the scope of its REST equivalent (org.admin):
 * settings (PATCH /api/v1/organization, with the revision the page showed), a secret, "Test connection", a member's
 * role, a member's removal, an invitation and its withdrawal. They call the directory's services, as the REST routes do; a refused
 * change comes back on the page with the service's words, and nothing was stored.
 */
import {
  changeSettings,
  createInvitation,
  getOrganization,
  putMember,
  removeMember,
  setOrganizationSecret,
  withdrawInvitation,
  type Actor,
} from "../../organizations/admin";
import { Failure } from "../../core/failure";
import { testUpstream } from "../../organizations/upstream-test";
import type { ConsoleAction } from "./actions";
import type { ConsoleContext } from "./context";
import { failurePage, isFormProblem, runGoverned, withCorrelationId } from "./governed";
import { organizationPage, type OrganizationPageOptions } from "./organization.page";

const member = (context: ConsoleContext): Actor => ({ kind: "member", userId: context.principal.userId });
const text = (form: URLSearchParams, name: string) => String(form.get(name) ?? "").trim();

/** A number field: empty is unset; anything else goes to the schema as typed (which names a non-number). */
function numberField(form: URLSearchParams, name: string): number | string | undefined {
  const value = text(form, name);
  if (value === "") return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

function quotaOf(form: URLSearchParams, limit: string, window: string) {
  const [l, w] = [numberField(form, limit), numberField(form, window)];
  return l === undefined && w === undefined ? undefined : { limit: l, windowSeconds: w ?? 60 };
}

/** The settings form as a change of the settings it shows (tool quotas set elsewhere are kept). */
async function settingsPatch(context: ConsoleContext, form: URLSearchParams): Promise<Record<string, unknown>> {
  const current = (await getOrganization(context.env, context.organizationId)).settings;
  const issuer = text(form, "signInIssuer");
  const endpoint = text(form, "upstreamEndpoint");
  const quotas = {
    ...(current.quotas?.tools ? { tools: current.quotas.tools } : {}),
    ...(quotaOf(form, "quotaDefaultLimit", "quotaDefaultWindow")
      ? { default: quotaOf(form, "quotaDefaultLimit", "quotaDefaultWindow") }
      : {}),
    ...(quotaOf(form, "quotaRestLimit", "quotaRestWindow")
      ? { rest: quotaOf(form, "quotaRestLimit", "quotaRestWindow") }
      : {}),
  };
  const optional = (name: string) => (text(form, name) ? text(form, name) : undefined);
  return {
    name: text(form, "name"),
    emailDomains: text(form, "emailDomains")
      .split(",")
      .map((domain) => domain.trim())
      .filter(Boolean),
    membersOnly: form.get("membersOnly") === "true",
    defaultRole: text(form, "defaultRole"),
    signIn: issuer
      ? {
          issuer,
          clientId: text(form, "signInClientId"),
          ...(optional("signInRoleClaim") ? { roleClaim: optional("signInRoleClaim") } : {}),
          ...(current.signIn?.scopes ? { scopes: current.signIn.scopes } : {}),
        }
      : null,
    upstream: endpoint
      ? {
          endpoint,
          credentialHeader: text(form, "upstreamCredentialHeader") || "Authorization",
          ...(optional("upstreamCredentialScheme") ? { credentialScheme: optional("upstreamCredentialScheme") } : {}),
          ...(optional("upstreamOrganizationHeader")
            ? { organizationHeader: optional("upstreamOrganizationHeader") }
            : {}),
        }
      : null,
    quotas: Object.keys(quotas).length ? quotas : null,
  };
}

/**
 * One form: governed with org.admin, then back to the page (303 with a done message, or the page itself when it has
 * something to show once), a refusal on the page, any other failure as the console's error page.
 */
function organizationAction(
  path: string,
  run: (context: ConsoleContext, form: URLSearchParams) => Promise<{ done?: string; show?: OrganizationPageOptions }>,
): ConsoleAction {
  return async (context, form) => {
    const { result, correlationId } = await runGoverned(
      context,
      { method: "POST", path, requiredScopes: ["org.admin"] },
      { fields: [...new Set(form.keys())].filter((name) => name !== "value") },
      () => ({ handler: () => run(context, form) }),
    );
    if (result.ok) {
      if (result.value.show)
        return withCorrelationId(await organizationPage(context, result.value.show), correlationId);
      return withCorrelationId(
        new Response(null, {
          status: 303,
          headers: {
            Location: `/admin/organization?done=${result.value.done ?? "saved"}`,
            "Cache-Control": "no-store",
          },
        }),
        correlationId,
      );
    }
    if (
      isFormProblem(result.failure) ||
      result.failure.kind === "unprocessable" ||
      result.failure.kind === "unavailable"
    )
      return withCorrelationId(
        await organizationPage(context, { error: result.failure.message, status: result.failure.status }),
        correlationId,
      );
    return failurePage(result.failure, correlationId);
  };
}

export const ORGANIZATION_DONE_MESSAGES: Record<string, string> = {
  saved: "The settings were saved: the next requests use them.",
  "secret-set": "The secret was stored (encrypted). It is not shown again.",
  "member-changed": "The member's role was changed; grants beyond it were revoked.",
  "member-removed": "The member was removed and their grants revoked.",
  "invitation-withdrawn": "The invitation was withdrawn: its link no longer works.",
};

export const ORGANIZATION_ACTIONS: Record<string, ConsoleAction> = {
  "/admin/organization/settings": organizationAction("/admin/organization/settings", async (context, form) => {
    const revision = Number(text(form, "revision"));
    await changeSettings(context.env, context.organizationId, await settingsPatch(context, form), member(context), {
      expectedRevision: Number.isInteger(revision) && revision > 0 ? revision : null,
    });
    return { done: "saved" };
  }),
  "/admin/organization/secret": organizationAction("/admin/organization/secret", async (context, form) => {
    const name = text(form, "name");
    if (name !== "signInClientSecret" && name !== "upstreamCredential")
      throw new Failure(
        "invalid_input",
        "The form names no secret this page sets (signInClientSecret or upstreamCredential). Reload the page and " +
          "try again.",
        {},
        "invalid_settings",
      );
    const value = String(form.get("value") ?? "");
    await setOrganizationSecret(
      context.env,
      context.organizationId,
      name,
      value === "" ? null : value,
      member(context),
    );
    return { done: "secret-set" };
  }),
  "/admin/organization/upstream-test": organizationAction("/admin/organization/upstream-test", async (context) => ({
    show: { upstreamTest: await testUpstream(context.env, context.organizationId) },
  })),
  "/admin/organization/member": organizationAction("/admin/organization/member", async (context, form) => {
    await putMember(context.env, context.organizationId, text(form, "email"), text(form, "role"), member(context));
    return { done: "member-changed" };
  }),
  "/admin/organization/member/remove": organizationAction(
    "/admin/organization/member/remove",
    async (context, form) => {
      await removeMember(context.env, context.organizationId, text(form, "email"), member(context));
      return { done: "member-removed" };
    },
  ),
  "/admin/organization/invitation/withdraw": organizationAction(
    "/admin/organization/invitation/withdraw",
    async (context, form) => {
      await withdrawInvitation(context.env, context.organizationId, text(form, "id"), member(context));
      return { done: "invitation-withdrawn" };
    },
  ),
  "/admin/organization/invite": organizationAction("/admin/organization/invite", async (context, form) => {
    const created = await createInvitation(
      context.env,
      context.organizationId,
      text(form, "inviteEmail"),
      text(form, "role"),
      member(context),
    );
    return {
      show: {
        invitationLink: {
          email: created.invitation.email,
          link: created.link,
          expiresAt: created.invitation.expiresAt,
        },
        status: 201,
      },
    };
  }),
};
