/**
 * An organization's administrators configure their own organization (scope org.admin): its settings (display name,
 * e-mail domains, sign-in provider, role caps, upstream, quotas, audit retention), its write-only secrets, its
 * members, and they read its change log. Always the caller's own organization: no route takes an organization id,
 * so no administrator can reach another's. Claim values of the platform's provider are the operator's to set.
 * The services are the directory's (src/organizations/admin.ts), shared with the operator's API.
 */
import { Failure } from "../core/failure";
import type { Principal } from "../core/principal";
import {
  changeSettings,
  createInvitation,
  getOrganization,
  INVITATIONS_PER_PAGE,
  listInvitations,
  listMembers,
  CHANGES_PER_PAGE,
  organizationChanges,
  organizationLimits,
  organizationView,
  putMember,
  removeMember,
  setOrganizationSecret,
  withdrawInvitation,
  type Actor,
} from "../organizations/admin";
import type { SecretName } from "../directory/rpc";
import { testUpstream } from "../organizations/upstream-test";
import { MAX_JSON_BODY_BYTES } from "../contracts/store/limits";
import { afterQuery, json, MEMBER_AFTER, pageQuery, readJsonBody, unpagedLimit } from "./contracts-http";
import { expectedRevision } from "./operator.routes";
import type { ApiRoute } from "./router";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { readBodyLimited } from "../lib/body";

const SCOPE = ["org.admin"] as const;
const member = (principal: Principal): Actor => ({ kind: "member", userId: principal.userId });
const anyObject = z.record(z.string(), z.unknown());
/** Settings only the deployment's operator changes, with why. */
const OPERATOR_ONLY = {
  claimValues: "they map the platform provider's claims to organizations",
  storageQuotaBytes: "they decide how much each organization may store; ask them to raise it",
} as const;

function refuseOperatorOnly(patch: Record<string, unknown>, current: Record<string, unknown>): void {
  for (const [key, why] of Object.entries(OPERATOR_ONLY)) {
    if (key in patch && JSON.stringify(patch[key]) !== JSON.stringify(current[key]))
      throw new Failure(
        "forbidden",
        `Invalid settings: ${key}: set by the deployment's operator (${why}); leave it out.`,
        { field: key },
        "operator_only_setting",
      );
  }
}

/** Settings as JSON, or as YAML (`arbiter org apply org.yaml`): the same schema validates both. */
async function settingsBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/yaml/i.test(type)) return (await readJsonBody(request, MAX_JSON_BODY_BYTES, anyObject)).data;
  const read = await readBodyLimited(request, MAX_JSON_BODY_BYTES);
  if (!read.ok)
    throw new Failure("invalid_input", "The settings are empty, unreadable or too large.", {}, "invalid_body");
  let value: unknown;
  try {
    value = parseYaml(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(read.bytes), {
      maxAliasCount: 0,
    });
  } catch (error) {
    const said = error instanceof Error ? error.message.split("\n")[0]?.slice(0, 200) : "";
    throw new Failure("invalid_input", `The settings are not valid YAML: ${said}`, {}, "invalid_yaml");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Failure(
      "invalid_input",
      "The settings must be a mapping of setting names to values.",
      {},
      "invalid_settings",
    );
  return value as Record<string, unknown>;
}

async function changeOwnSettings(
  request: Request,
  env: Parameters<ApiRoute["handle"]>[0]["env"],
  principal: Principal,
  replace: boolean,
) {
  const patch = await settingsBody(request);
  const dryRun = new URL(request.url).searchParams.get("dryRun") === "true";
  const current = await getOrganization(env, principal.organizationId);
  refuseOperatorOnly(patch, current.settings);
  const settings =
    replace && !("claimValues" in patch) ? { ...patch, claimValues: current.settings.claimValues } : patch;
  const record = await changeSettings(env, principal.organizationId, settings, member(principal), {
    replace,
    expectedRevision: expectedRevision(request),
    action: replace ? "settings.applied" : "settings.changed",
    dryRun,
  });
  return json({
    organization: organizationView(record),
    ...(record.difference ? { dryRun: true, difference: record.difference } : {}),
  });
}

export const organizationRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/organization",
    requiredScopes: SCOPE,
    handle: async ({ env, principal }) => {
      const [record, limits] = await Promise.all([
        getOrganization(env, principal.organizationId),
        organizationLimits(env, principal.organizationId),
      ]);
      return json({ organization: organizationView(record), limits });
    },
  },
  {
    method: "PATCH",
    path: "/api/v1/organization",
    requiredScopes: SCOPE,
    handle: ({ request, env, principal }) => changeOwnSettings(request, env, principal, false),
  },
  {
    method: "PUT",
    path: "/api/v1/organization",
    requiredScopes: SCOPE,
    handle: ({ request, env, principal }) => changeOwnSettings(request, env, principal, true),
  },
  {
    method: "PUT",
    path: "/api/v1/organization/secrets/:name",
    requiredScopes: SCOPE,
    async handle({ request, env, principal, params }) {
      const name = params.name as SecretName;
      if (name !== "signInClientSecret" && name !== "upstreamCredential")
        throw new Failure(
          "not_found",
          `Unknown secret "${params.name}": secrets are signInClientSecret, upstreamCredential.`,
          {},
          "unknown_secret",
        );
      const { value } = (await readJsonBody(request, MAX_JSON_BODY_BYTES, z.object({ value: z.string().nullable() })))
        .data;
      const record = await setOrganizationSecret(env, principal.organizationId, name, value, member(principal));
      return json({ organization: organizationView(record) });
    },
  },
  {
    method: "GET",
    path: "/api/v1/organization/members",
    requiredScopes: SCOPE,
    handle: async ({ env, principal, request }) => {
      const url = new URL(request.url);
      const { limit } = unpagedLimit(url);
      const after = afterQuery(url, MEMBER_AFTER);
      return json(await listMembers(env, principal.organizationId, { limit, after }));
    },
  },
  {
    method: "PUT",
    path: "/api/v1/organization/members/:email",
    requiredScopes: SCOPE,
    async handle({ request, env, principal, params, note }) {
      const { role } = (await readJsonBody(request, MAX_JSON_BODY_BYTES, z.object({ role: z.string() }))).data;
      const changed = await putMember(env, principal.organizationId, params.email, role, member(principal));
      note(`grants revoked: ${changed.grantsRevoked}`);
      return json(changed);
    },
  },
  {
    method: "DELETE",
    path: "/api/v1/organization/members/:email",
    requiredScopes: SCOPE,
    async handle({ env, principal, params, note }) {
      const removed = await removeMember(env, principal.organizationId, params.email, member(principal));
      note(`grants revoked: ${removed.grantsRevoked}`);
      return json(removed);
    },
  },
  {
    method: "POST",
    path: "/api/v1/organization/invitations",
    requiredScopes: SCOPE,
    async handle({ request, env, principal }) {
      const { email, role } = (
        await readJsonBody(request, MAX_JSON_BODY_BYTES, z.object({ email: z.string(), role: z.string() }))
      ).data;
      const created = await createInvitation(env, principal.organizationId, email, role, member(principal));
      return json(
        {
          ...created,
          notice: `Send this link to ${created.invitation.email}: it works once, until ${created.invitation.expiresAt}, and is not shown again.`,
        },
        201,
      );
    },
  },
  {
    method: "GET",
    path: "/api/v1/organization/invitations",
    requiredScopes: SCOPE,
    handle: async ({ env, principal, request }) =>
      json(await listInvitations(env, principal.organizationId, pageQuery(new URL(request.url), INVITATIONS_PER_PAGE))),
  },
  {
    method: "DELETE",
    path: "/api/v1/organization/invitations/:id",
    requiredScopes: SCOPE,
    handle: async ({ env, principal, params }) =>
      json({ invitation: await withdrawInvitation(env, principal.organizationId, params.id, member(principal)) }),
  },
  {
    method: "GET",
    path: "/api/v1/organization/changes",
    requiredScopes: SCOPE,
    handle: async ({ env, principal, request }) =>
      json(await organizationChanges(env, principal.organizationId, pageQuery(new URL(request.url), CHANGES_PER_PAGE))),
  },
  {
    method: "POST",
    path: "/api/v1/organization/upstream/test",
    requiredScopes: SCOPE,
    handle: async ({ env, principal }) => json(await testUpstream(env, principal.organizationId)),
  },
];
