/**
 * CI key administration (scope keys.admin): create (the key is in the answer once and never again), list
 * (records only, never a secret or its hash) and revoke. Keys live in the organization's ContractStore, so a
 * revocation is seen by the very next request. The rules and the audit events are shared with the admin
 * console (src/oauth/cikey-admin.ts).
 */
import { Failure, kindForStatus } from "../core/failure";
import { createCiKey, createCiKeyRequest, listCiKeys, revokeCiKey, type KeyAdministrator } from "../oauth/cikey-admin";
import { MAX_JSON_BODY_BYTES } from "../contracts/store/limits";
import type { Principal } from "../core/principal";
import { json, readJsonBody, unpagedLimit } from "./contracts-http";
import type { ApiRoute } from "./router";

const administrator = (principal: Principal): KeyAdministrator => ({
  organizationId: principal.organizationId,
  userId: principal.userId,
  role: principal.role,
  clientId: principal.clientId,
});

export const ciKeyRoutes: ApiRoute[] = [
  {
    method: "POST",
    path: "/api/v1/keys",
    requiredScopes: ["keys.admin"],
    async handle({ request, env, principal }) {
      const body = await readJsonBody(request, MAX_JSON_BODY_BYTES, createCiKeyRequest);
      const created = await createCiKey(env, administrator(principal), body.data);
      if (!created.ok) throw new Failure(kindForStatus(created.status), created.message, {}, created.code);
      return json(
        {
          key: created.key,
          secret: created.secret,
          notice: "Store this key now (e.g. as the ARBITER_TOKEN secret of your CI): it is not shown again.",
        },
        201,
      );
    },
  },
  {
    method: "GET",
    path: "/api/v1/keys",
    requiredScopes: ["keys.admin"],
    async handle({ request, env, principal }) {
      const limit = unpagedLimit(new URL(request.url));
      const keys = await listCiKeys(env, principal.organizationId);
      return json({ keys: limit.limit === null ? keys : keys.slice(0, limit.limit) });
    },
  },
  {
    method: "DELETE",
    path: "/api/v1/keys/:id",
    requiredScopes: ["keys.admin"],
    async handle({ env, principal, params }) {
      const revoked = await revokeCiKey(env, administrator(principal), params.id ?? "");
      if (!revoked.ok) throw new Failure(kindForStatus(revoked.status), revoked.message, {}, revoked.code);
      return json({ key: revoked.key });
    },
  },
];
