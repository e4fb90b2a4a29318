/**
 * CI key administration (scope keys.admin): create (the key is in the answer once and never again), list
 * (records only, never a secret or its hash) and revoke. Keys live in the organization's ContractStore, so a
 * revocation is seen by the very next request.
 */
import { z } from "zod";
import { CI_KEY_SCOPES, generateCiKey } from "../contracts/cikeys";
import { contractStore } from "../contracts/store/client";
import { MAX_JSON_BODY_BYTES } from "../contracts/store/limits";
import { isProjectName, PROJECT_NAME_RULE } from "../contracts/store/names";
import type { CiKeyRecord } from "../contracts/store/records";
import { getPolicy } from "../policy/load";
import { json, readJsonBody } from "./contracts-http";
import { apiError } from "./errors";
import type { ApiRoute } from "./router";

const keyName = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .regex(/^[^\u0000-\u001f\u007f]+$/, "no control characters")
  .describe("What the key is for, e.g. 'orders-api GitHub Actions'");
const keyProjects = z
  .array(z.string().refine((p) => p === "*" || isProjectName(p), { message: `each project is "*" (all projects) or a name of ${PROJECT_NAME_RULE}` }))
  .min(1)
  .max(100)
  .describe('Projects the key may touch, or ["*"] for every project of the organization');
const keyScopes = z.array(z.enum(CI_KEY_SCOPES)).min(1).describe("Scopes the key carries");
const keyExpiry = z.iso.datetime({ offset: true }).optional().describe("When the key stops working (ISO 8601); omit for no expiry");

const createKeySchema = z.object({ name: keyName, projects: keyProjects, scopes: keyScopes, expiresAt: keyExpiry }).strict();

function keyStatus(key: CiKeyRecord, now = Date.now()): "active" | "revoked" | "expired" {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return "expired";
  return "active";
}

const present = (key: CiKeyRecord) => ({ ...key, status: keyStatus(key) });

export const ciKeyRoutes: ApiRoute[] = [
  {
    method: "POST",
    path: "/api/v1/keys",
    requiredScopes: ["keys.admin"],
    async handle({ request, env, principal }) {
      const body = await readJsonBody(request, MAX_JSON_BODY_BYTES, createKeySchema);
      if ("response" in body) return body.response;
      const { name, projects, scopes, expiresAt } = body.data;
      const grantable = new Set(getPolicy().roles[principal.role]?.grantable ?? []);
      const beyondRole = scopes.filter((scope) => !grantable.has(scope));
      if (beyondRole.length > 0) {
        return apiError(403, "scope_not_grantable", `Your role "${principal.role}" cannot grant ${beyondRole.join(", ")}; a CI key carries at most what its creator's role may grant.`);
      }
      if (expiresAt && Date.parse(expiresAt) <= Date.now()) return apiError(400, "invalid_request", "expiresAt is in the past: give a future time or omit it.");
      const { id, key, secretHash } = await generateCiKey(principal.organizationId);
      const record = await contractStore(env, principal.organizationId).createKey({
        id,
        name,
        secretHash,
        projects: [...new Set(projects)],
        scopes: [...new Set(scopes)],
        createdBy: principal.userId,
        expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null,
      });
      return json({ key: present(record), secret: key, notice: "Store this key now (e.g. as the ARBITER_TOKEN secret of your CI): it is not shown again." }, 201);
    },
  },
  {
    method: "GET",
    path: "/api/v1/keys",
    requiredScopes: ["keys.admin"],
    async handle({ env, principal }) {
      const keys = await contractStore(env, principal.organizationId).listKeys();
      return json({ keys: keys.map(present) });
    },
  },
  {
    method: "DELETE",
    path: "/api/v1/keys/:id",
    requiredScopes: ["keys.admin"],
    async handle({ env, principal, params }) {
      const id = params.id ?? "";
      if (!/^[0-9a-f]{16}$/.test(id)) return apiError(400, "invalid_path", "A CI key id is 16 hexadecimal characters, as listed by GET /api/v1/keys.");
      const revoked = await contractStore(env, principal.organizationId).revokeKey(id, principal.userId);
      if (!revoked) return apiError(404, "unknown_key", `There is no CI key ${id} in your organization.`);
      return json({ key: present(revoked) });
    },
  },
];
