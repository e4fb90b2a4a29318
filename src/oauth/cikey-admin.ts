/**
 * CI key administration shared by the REST API (POST/DELETE /api/v1/keys) and the admin console: the
 * request schema, the rule that a key carries at most what its creator's role may grant, the store write,
 * and the `ci_key_created` / `ci_key_revoked` audit events (one per key created or revoked, whichever
 * surface did it). The secret is returned to the caller once and never recorded.
 */
import { z } from "zod";
import { auditSinkFor } from "../audit/sink";
import { recordEvent } from "../core/governed";
import type { Env } from "../env";
import { resolveOrganization } from "../directory/client";
import { organizationGrantable } from "../directory/grantable";
import { CI_KEY_SCOPES, generateCiKey } from "./cikeys";
import { keyRecords, revokeKeyRecord, storeKey } from "../contracts/services/keys";
import { isProjectName, PROJECT_NAME_RULE } from "../contracts/store/names";
import type { KeyPage } from "../contracts/store/key-table";
import { MAX_ACTIVE_KEYS } from "../contracts/store/limits";
import type { CiKeyRecord } from "../contracts/store/records";

export const ciKeyName = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .regex(/^[^\u0000-\u001f\u007f]+$/, "no control characters")
  .describe("What the key is for, e.g. 'orders-api GitHub Actions'");
export const ciKeyProjects = z
  .array(
    z.string().refine((p) => p === "*" || isProjectName(p), {
      message: `each project is "*" (all projects) or a name of ${PROJECT_NAME_RULE}`,
    }),
  )
  .min(1)
  .max(100)
  .describe('Projects the key may touch, or ["*"] for every project of the organization');
export const ciKeyScopes = z.array(z.enum(CI_KEY_SCOPES)).min(1).describe("Scopes the key carries");
export const ciKeyExpiry = z.iso
  .datetime({ offset: true })
  .optional()
  .describe("When the key stops working (ISO 8601); omit for no expiry");

export const createCiKeyRequest = z
  .object({ name: ciKeyName, projects: ciKeyProjects, scopes: ciKeyScopes, expiresAt: ciKeyExpiry })
  .strict();
export type CreateCiKeyRequest = z.output<typeof createCiKeyRequest>;

/** Who administers the key: the organization and user come from a verified token or browser session. */
export interface KeyAdministrator {
  organizationId: string;
  userId: string;
  role: string;
  /** The OAuth client the administrator used, or the console's own id. Recorded in the audit event. */
  clientId: string;
}

export type CiKeyStatus = "active" | "revoked" | "expired";
export type PresentedCiKey = CiKeyRecord & { status: CiKeyStatus };

export type KeyAdminFailure = { ok: false; status: 400 | 403 | 404 | 409; code: string; message: string };

export function ciKeyStatus(key: CiKeyRecord, now = Date.now()): CiKeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return "expired";
  return "active";
}

export const presentCiKey = (key: CiKeyRecord, now = Date.now()): PresentedCiKey => ({
  ...key,
  status: ciKeyStatus(key, now),
});

async function recordKeyEvent(
  env: Env,
  actor: KeyAdministrator,
  event: "ci_key_created" | "ci_key_revoked",
  key: CiKeyRecord,
  started: number,
  correlationId: string | undefined,
): Promise<void> {
  const what =
    event === "ci_key_created"
      ? `created key ${key.id} for projects ${key.projects.join(",")} with ${key.scopes.join(" ")}`
      : `revoked key ${key.id}`;
  await recordEvent(auditSinkFor(env), {
    caller: actor,
    target: event,
    startedMs: started,
    reason: what,
    ...(correlationId ? { correlationId } : {}),
  });
}

/**
 * Creates a key; the secret is in the answer once. Records `ci_key_created`, with `correlationId` when the creation
 * runs inside a governed request (the console's, whose core then writes no record of its own).
 */
export async function createCiKey(
  env: Env,
  actor: KeyAdministrator,
  request: CreateCiKeyRequest,
  correlationId?: string,
): Promise<{ ok: true; key: PresentedCiKey; secret: string } | KeyAdminFailure> {
  const started = Date.now();
  // What the role may grant in this organization: the platform's role narrowed by the organization's cap.
  const settings = (await resolveOrganization(env, actor.organizationId))?.record.settings;
  const grantable = new Set(organizationGrantable(settings, actor.role));
  const beyondRole = request.scopes.filter((scope) => !grantable.has(scope));
  if (beyondRole.length > 0) {
    return {
      ok: false,
      status: 403,
      code: "scope_not_grantable",
      message: `Your role "${actor.role}" cannot grant ${beyondRole.join(", ")} in this organization; a CI key carries at most what its creator's role may grant.`,
    };
  }
  if (request.expiresAt && Date.parse(request.expiresAt) <= Date.now()) {
    return {
      ok: false,
      status: 400,
      code: "invalid_request",
      message: "expiresAt is in the past: give a future time or omit it.",
    };
  }
  const { id, key, secretHash } = await generateCiKey(actor.organizationId);
  const record = await storeKey(env, actor.organizationId, {
    id,
    name: request.name,
    secretHash,
    projects: [...new Set(request.projects)],
    scopes: [...new Set(request.scopes)],
    createdBy: actor.userId,
    expiresAt: request.expiresAt ? new Date(request.expiresAt).toISOString() : null,
  });
  if (!record)
    return {
      ok: false,
      status: 409,
      code: "too_many_keys",
      message: `Your organization has ${MAX_ACTIVE_KEYS} active CI keys, the most it may have at once, and nothing was created: revoke keys no pipeline uses (GET /api/v1/keys lists them, newest first; DELETE /api/v1/keys/{id} revokes one), then create this one again.`,
    };
  await recordKeyEvent(env, actor, "ci_key_created", record, started, correlationId);
  return { ok: true, key: presentCiKey(record), secret: key };
}

export const CI_KEY_ID = /^[0-9a-f]{16}$/;

/**
 * Revokes a key of the administrator's organization. Records `ci_key_revoked` when this call revoked it; revoking
 * an already revoked key answers the key as it is and records nothing. `correlationId` as for createCiKey.
 */
export async function revokeCiKey(
  env: Env,
  actor: KeyAdministrator,
  id: string,
  correlationId?: string,
): Promise<{ ok: true; key: PresentedCiKey; revokedNow: boolean } | KeyAdminFailure> {
  const started = Date.now();
  if (!CI_KEY_ID.test(id))
    return {
      ok: false,
      status: 400,
      code: "invalid_path",
      message: "A CI key id is 16 hexadecimal characters, as listed by GET /api/v1/keys.",
    };
  const { before, after: revoked } = await revokeKeyRecord(env, actor.organizationId, id, actor.userId);
  if (!before || !revoked)
    return { ok: false, status: 404, code: "unknown_key", message: `There is no CI key ${id} in your organization.` };
  if (before.revokedAt) return { ok: true, key: presentCiKey(revoked), revokedNow: false };
  await recordKeyEvent(env, actor, "ci_key_revoked", revoked, started, correlationId);
  return { ok: true, key: presentCiKey(revoked), revokedNow: true };
}

/** A page of the organization's keys with their status, newest first (services/keys.ts keyRecords). */
export async function listCiKeys(env: Env, organizationId: string, page: KeyPage = {}): Promise<PresentedCiKey[]> {
  const now = Date.now();
  return (await keyRecords(env, organizationId, page)).map((key) => presentCiKey(key, now));
}
