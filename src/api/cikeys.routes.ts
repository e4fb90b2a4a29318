/**
 * CI key administration (scope keys.admin): create (the key is in the answer once and never again), list
 * (records only, never a secret or its hash; newest first, `?limit=&after=` a page at a time) and revoke. Keys live in the organization's ContractStore, so a
 * revocation is seen by the very next request. The rules and the audit events are shared with the admin
 * console (src/oauth/cikey-admin.ts).
 */
import { Failure, kindForStatus } from "../core/failure";
import {
  CI_KEY_ID,
  createCiKey,
  createCiKeyRequest,
  listCiKeys,
  revokeCiKey,
  type KeyAdministrator,
} from "../oauth/cikey-admin";
import { cutPage, oneMore } from "../lib/page";
import { MAX_JSON_BODY_BYTES } from "../contracts/store/limits";
import type { Principal } from "../core/principal";
import { type AfterRule, afterQuery, json, readJsonBody, unpagedLimit } from "./contracts-http";
import type { ApiRoute } from "./router";

const administrator = (principal: Principal): KeyAdministrator => ({
  organizationId: principal.organizationId,
  userId: principal.userId,
  role: principal.role,
  clientId: principal.clientId,
});

/** `?after=` of the key list: the nextAfter of the previous page, a key id. */
const KEY_AFTER: AfterRule = {
  accepts: (value) => CI_KEY_ID.test(value),
  what: "a CI key id, 16 hexadecimal characters",
};

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
      const url = new URL(request.url);
      const { limit } = unpagedLimit(url);
      const listed = await listCiKeys(env, principal.organizationId, {
        limit: oneMore(limit),
        after: afterQuery(url, KEY_AFTER),
      });
      const { items: keys, nextAfter } = cutPage(listed, limit, (key) => key.id);
      return json({ keys, nextAfter });
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
