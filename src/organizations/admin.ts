/**
 * The directory's services: the one door through which the operator's routes, the organization administrators'
 * routes, the console and the CLI (over REST) read and change organizations. Each validates with the settings
 * schema and the platform's catalogue and caps, writes in one directory transaction, drops this isolate's cached
 * entry, and applies the change's effects: a member removed or given a lower role loses the grants beyond it at
 * once; a deleted organization's grants are revoked. Refusals are Failures with a stable code naming the fix.
 */
import { Failure, type FailureKind } from "../core/failure";
import { discoverProvider } from "../auth/oidc-discovery";
import { ORGANIZATION_PROVIDER_SETTINGS } from "../auth/oidc-config";
import type { Env } from "../env";
import { base64url } from "jose";
import { sha256Hex } from "../lib/sha256";
import { pageByName } from "../lib/page";
import { logWarn } from "../lib/log";
import { revokeSubjectsBeyond, type SweepState } from "../oauth/grant-sweep";
import { grantSweeper } from "../oauth/grant-sweeper-rpc";
import { archiveKey, type ExportJob } from "./export-job";
import { organizationExporter } from "./exporter-rpc";
import { exportStart, nextExportPiece } from "./export-reader";
import { getPolicy } from "../policy/load";
import { organizationGrantable } from "../directory/grantable";
import { directoryStub, organizationChanged } from "../directory/client";
import type { DirectoryRefusal, DirectoryUsage, OrganizationLimits, SecretName } from "../directory/rpc";
import {
  NEW_ORGANIZATION_ID,
  organizationSettingsSchema,
  parseSettings,
  platformCapsSchema,
  SettingsError,
  settingsErrorFromZod,
  type ChangeRecord,
  type InvitationRecord,
  type MemberRecord,
  type OrganizationRecord,
  type OrganizationSettings,
  type PlatformCaps,
} from "../directory/settings";
import { checkSettings, isDevelopmentOrigin, type DataPolicyFloor } from "../directory/validate";
import { getNamedType, isObjectType } from "graphql";
import { getGraphqlCatalog } from "../graphql/bundled";

/** Who is changing the directory: the operator, or a member of the organization (their grant's user id). */
export type Actor = { kind: "operator" } | { kind: "member"; userId: string };
const actorName = (actor: Actor) => (actor.kind === "operator" ? "operator" : actor.userId);

const REFUSAL_KINDS: Record<DirectoryRefusal["code"], FailureKind> = {
  unknown_organization: "not_found",
  organization_exists: "conflict",
  domain_claimed: "conflict",
  stale_revision: "conflict",
  not_allowed_in_status: "conflict",
  export_required: "conflict",
  last_admin: "conflict",
  unknown_member: "not_found",
  secret_key_missing: "unavailable",
  unknown_invitation: "not_found",
  invitation_used: "conflict",
  too_many_invitations: "conflict",
  too_many_members: "conflict",
  invitation_expired: "conflict",
  invitation_wrong_person: "forbidden",
};

function refused(refusal: DirectoryRefusal): Failure {
  return new Failure(
    REFUSAL_KINDS[refusal.code],
    refusal.message,
    refusal.field ? { field: refusal.field } : {},
    refusal.code,
  );
}

function invalidSettings(error: SettingsError): Failure {
  return new Failure(
    "invalid_input",
    `Invalid settings: ${error.field || "(settings)"}: ${error.problem}.`,
    { field: error.field },
    "invalid_settings",
  );
}

/** The settings as validated against schema, catalogue and caps; throws the Failure naming the first bad field. */
async function validated(env: Env, input: unknown): Promise<OrganizationSettings> {
  try {
    const settings = parseSettings(input);
    checkSettings(
      settings,
      getPolicy(),
      await directoryStub(env).caps(),
      isDevelopmentOrigin(env.PUBLIC_URL),
      dataPolicyFloor(),
    );
    return settings;
  } catch (error) {
    if (error instanceof SettingsError) throw invalidSettings(error);
    throw error;
  }
}

/**
 * A new sign-in provider must answer its discovery document now, so a typo in the issuer is caught when it is set
 * rather than at a member's first sign-in.
 */
async function checkProvider(issuer: string): Promise<void> {
  try {
    await discoverProvider(issuer, ORGANIZATION_PROVIDER_SETTINGS);
  } catch (error) {
    if (!(error instanceof Failure)) throw error; // discovery fails with an OidcFailure, a Failure
    throw new Failure(
      "unprocessable",
      `Invalid settings: signIn.issuer: the identity provider's discovery failed (${error.message}) Check the issuer URL: ${issuer}/.well-known/openid-configuration must answer.`,
      { field: "signIn.issuer" },
      "identity_provider_unreachable",
    );
  }
}

/** One setting that a change would add, remove or change, by its dotted path. */
export interface SettingsDifference {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** The leaves that differ between two settings objects (arrays compared whole), in path order. */
export function settingsDifference(before: unknown, after: unknown, path = ""): SettingsDifference[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => settingsDifference(before[key], after[key], path ? `${path}.${key}` : key));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) }];
}

/** The platform's masked fields and the orders schema's field types, for an organization's data policy. */
function dataPolicyFloor(): DataPolicyFloor {
  const catalog = getGraphqlCatalog();
  return {
    floor: new Set(catalog.masking.sensitive.keys()),
    leafType(coordinate) {
      const [typeName, fieldName] = coordinate.split(".");
      const type = typeName ? catalog.schema.getType(typeName) : undefined;
      if (!type || !isObjectType(type)) return undefined;
      const field = fieldName ? type.getFields()[fieldName] : undefined;
      return field ? getNamedType(field.type).name : undefined;
    },
  };
}

/** What every surface shows of an organization: never a secret's value. */
export function organizationView(record: OrganizationRecord) {
  return {
    id: record.id,
    status: record.status,
    revision: record.revision,
    settings: record.settings,
    secrets: record.secrets,
    seeded: record.seeded,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.deleteAfter ? { deleteAfter: record.deleteAfter } : {}),
    ...(record.exportedAt ? { exportedAt: record.exportedAt } : {}),
  };
}

export async function getOrganization(env: Env, organizationId: string): Promise<OrganizationRecord> {
  const record = await directoryStub(env).organization(organizationId);
  if (!record || record.status === "deleted")
    throw new Failure("not_found", `There is no organization "${organizationId}".`, {}, "unknown_organization");
  return record;
}

/** Organizations by id, a page of `limit` after `after` (every one when no limit), and where the next page starts. */
export async function listOrganizations(
  env: Env,
  page: { limit?: number | null; after?: string | null } = {},
): Promise<{ organizations: OrganizationRecord[]; nextAfter: string | null }> {
  const directory = directoryStub(env);
  const { items: organizations, nextAfter } = await pageByName(
    (limit, after) => directory.list(limit, after),
    { limit: page.limit ?? null, after: page.after ?? null },
    (organization) => organization.id,
  );
  return { organizations, nextAfter };
}

export async function createOrganization(env: Env, id: unknown, input: unknown): Promise<OrganizationRecord> {
  if (typeof id !== "string" || !NEW_ORGANIZATION_ID.test(id))
    throw new Failure(
      "invalid_input",
      "Invalid settings: id: organization ids are 1-63 lowercase letters, digits and dashes, starting and ending with a " +
        'letter or digit, with no two dashes in a row (such as "initech" or "acme-eu").',
      { field: "id" },
      "invalid_settings",
    );
  const settings = await validated(env, input);
  if (settings.signIn) await checkProvider(settings.signIn.issuer);
  const created = await directoryStub(env).create(id, settings, "operator");
  if (!created.ok) throw refused(created);
  await organizationChanged(env, id);
  return created.record;
}

/**
 * Changes settings. `patch` replaces the top-level keys it names (a key set to null is removed); with `replace`,
 * it is the whole settings object (`arbiter org apply`). `expectedRevision` (when given) must be the current one.
 * Settings that come out as they were are not written: the answer is the organization as it is.
 */
export async function changeSettings(
  env: Env,
  organizationId: string,
  patch: unknown,
  actor: Actor,
  options: { replace?: boolean; expectedRevision?: number | null; action?: string; dryRun?: boolean } = {},
): Promise<OrganizationRecord & { difference?: SettingsDifference[] }> {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch))
    throw new Failure("invalid_input", "Invalid settings: send a JSON object of settings.", {}, "invalid_settings");
  const current = await getOrganization(env, organizationId);
  let next: Record<string, unknown>;
  if (options.replace) next = { ...(patch as Record<string, unknown>) };
  else {
    next = { ...current.settings };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
  }
  const settings = await validated(env, next);
  const difference = settingsDifference(current.settings, settings);
  if (options.dryRun) return { ...current, settings, difference };
  // Nothing to change (an `apply` run again, a form saved as it was): no new revision, no change-log entry.
  const expected = options.expectedRevision ?? null;
  if (difference.length === 0 && (expected === null || expected === current.revision)) return current;
  if (settings.signIn && settings.signIn.issuer !== current.settings.signIn?.issuer)
    await checkProvider(settings.signIn.issuer);
  const updated = await directoryStub(env).update(
    organizationId,
    settings,
    options.expectedRevision ?? null,
    actorName(actor),
    options.action ?? "settings.changed",
  );
  if (!updated.ok) throw refused(updated);
  await organizationChanged(env, organizationId);
  // The change is stored, and every request holds its token to the new cap from now on (withinRoleCap): a sweep
  // that cannot start is logged, not answered as an error of the change (one that fails part-way retries itself).
  await revokeBeyondNarrowedCaps(env, organizationId, current.settings, settings).catch((error: unknown) =>
    logWarn("grants beyond a narrowed role cap not all revoked", { organizationId, error }),
  );
  return updated.record;
}

/**
 * A role whose cap lost a scope takes it from the grants its members hold now, as a demotion does (putMember): the
 * organization's grant sweep (src/oauth/grant-sweep.ts) revokes each holder's grants beyond what their role may grant
 * under the settings as they are, a bounded batch at a time. The first batch runs before the answer; an organization
 * with more holders than a batch reaches is swept on by the sweeper's alarm. Requests hold tokens to the new cap at
 * once either way (withinRoleCap).
 */
async function revokeBeyondNarrowedCaps(
  env: Env,
  organizationId: string,
  before: OrganizationSettings,
  after: OrganizationSettings,
): Promise<void> {
  const narrowed = Object.keys(getPolicy().roles).some((role) => {
    const now = new Set(organizationGrantable(after, role));
    return organizationGrantable(before, role).some((scope) => !now.has(scope));
  });
  if (narrowed) await grantSweeper(env, organizationId).sweep();
}

/**
 * Where the organization's last grant sweep is (src/oauth/grant-sweep.ts): its phase, grants revoked, batches run and
 * the last batch's error; null when it never needed one.
 */
export function grantSweepOf(env: Env, organizationId: string): Promise<SweepState | null> {
  return grantSweeper(env, organizationId).progress();
}

/**
 * Ends the organization's open 2026-07-28 listen streams at once (new ones are refused by the organization gate).
 * Its 2025-11-25 sessions need nothing: each of their requests passes the gate.
 */
async function closeListenStreams(env: Env, organizationId: string): Promise<void> {
  await env.LISTEN_HUB.get(env.LISTEN_HUB.idFromName(organizationId))
    .closeAll(organizationId)
    .catch((error: unknown) => logWarn("listen streams not closed", { organizationId, error }));
}

export async function setOrganizationStatus(
  env: Env,
  organizationId: string,
  status: "active" | "suspended",
): Promise<OrganizationRecord> {
  const changed = await directoryStub(env).setStatus(organizationId, status, "operator");
  if (!changed.ok) throw refused(changed);
  await organizationChanged(env, organizationId);
  if (status === "suspended") await closeListenStreams(env, organizationId);
  return changed.record;
}

const SECRET_MAX = 4096;

export async function setOrganizationSecret(
  env: Env,
  organizationId: string,
  name: SecretName,
  value: unknown,
  actor: Actor,
): Promise<OrganizationRecord> {
  if (value !== null && (typeof value !== "string" || value.length === 0 || value.length > SECRET_MAX))
    throw new Failure(
      "invalid_input",
      `Invalid settings: ${name}: send {"value": "<the secret>"} (1-${SECRET_MAX} characters), or {"value": null} to clear it.`,
      { field: name },
      "invalid_settings",
    );
  const unprintable = typeof value === "string" ? value.search(/[^\x20-\x7e]/) : -1;
  if (typeof value === "string" && (unprintable >= 0 || value.trim() !== value))
    throw new Failure(
      "invalid_input",
      `Invalid settings: ${name}: a secret is sent in an HTTP header or form, so it must be printable ASCII without ` +
        (unprintable >= 0
          ? `control characters, line breaks or other characters (character ${unprintable + 1} is not).`
          : "spaces at its start or end."),
      { field: name },
      "invalid_settings",
    );
  const changed = await directoryStub(env).setSecret(organizationId, name, value, actorName(actor));
  if (!changed.ok) throw refused(changed);
  await organizationChanged(env, organizationId);
  return changed.record;
}

/** Changes a log page answers when the caller names no limit. */
export const CHANGES_PER_PAGE = 100;

/**
 * A page of the change log, newest first: an organization's, or every organization's (`organizationId` null).
 * `before`: the `nextBefore` of the previous page (a change's `seq`); `nextBefore` is null on the last page.
 */
export async function organizationChanges(
  env: Env,
  organizationId: string | null,
  page: { limit?: number | null; before?: number | null } = {},
): Promise<{ changes: ChangeRecord[]; nextBefore: number | null }> {
  const limit = page.limit ?? CHANGES_PER_PAGE;
  // RPC types a stored `unknown` (before/after) as never; the values are the JSON the store parsed.
  const listed = (await directoryStub(env).changes(organizationId, limit + 1, page.before ?? null)) as ChangeRecord[];
  const changes = listed.slice(0, limit);
  return { changes, nextBefore: listed.length > limit ? (changes.at(-1)?.seq ?? null) : null };
}

/** What the deployment's directory holds and its size (GET /operator/v1/directory). */
/** What bounds the organization: members and pending invitations against their maximum, the settings' ceilings. */
export async function organizationLimits(env: Env, organizationId: string): Promise<OrganizationLimits> {
  return directoryStub(env).limits(organizationId);
}

export async function directoryUsage(env: Env): Promise<DirectoryUsage> {
  return directoryStub(env).usage();
}

export async function platformCaps(env: Env): Promise<PlatformCaps> {
  return directoryStub(env).caps();
}

export async function setPlatformCaps(env: Env, input: unknown): Promise<PlatformCaps> {
  const parsed = platformCapsSchema.safeParse(input);
  if (!parsed.success) throw invalidSettings(settingsErrorFromZod(parsed.error, "caps"));
  return directoryStub(env).setCaps(parsed.data, "operator");
}

// ---- members ----------------------------------------------------------------------------------------------------

/** What the invitations list shows as an invitation's id (the start of its token's hash). */
const INVITATION_ID = /^[0-9a-f]{12}$/;

const EMAIL = /^[^\s@]{1,64}@[a-z0-9.-]+\.[a-z]{2,}$/i;

function checkedEmail(value: unknown): string {
  if (typeof value !== "string" || !EMAIL.test(value.trim()))
    throw new Failure(
      "invalid_input",
      "Invalid member: email: expected an e-mail address such as ana@example.com.",
      { field: "email" },
      "invalid_member",
    );
  return value.trim().toLowerCase();
}

/** A role of the platform's catalogue (policies/organizations.json), or the Failure naming the roles there are. */
function checkedRole(role: unknown, what: "member" | "invitation"): asserts role is string {
  const roles = Object.keys(getPolicy().roles);
  if (typeof role !== "string" || !roles.includes(role))
    throw new Failure(
      "invalid_input",
      `Invalid ${what}: role: expected one of ${roles.join(", ")}.`,
      { field: "role" },
      "invalid_member",
    );
}

/**
 * Revokes the grants of a member's subjects beyond `keep` (all of them when `keep` is empty), in this request as far
 * as its KV allowance goes; the rest (a member with more grants than that, or KV failing part-way) goes to the
 * organization's grant sweep, which revokes beyond each holder's role as the member list has it now and retries
 * until done. The grants revoked by this request and the sweep's first batch.
 */
async function revokeMemberGrants(
  env: Env,
  organizationId: string,
  subjects: readonly string[],
  keep: readonly string[],
): Promise<number> {
  const inline = await revokeSubjectsBeyond(env, organizationId, subjects, keep);
  if (inline.complete) return inline.revoked;
  const swept = await grantSweeper(env, organizationId)
    .sweep()
    .catch((error: unknown) => {
      logWarn("a member's grants not all revoked; the grant sweep could not start", { organizationId, error });
      return null;
    });
  return inline.revoked + (swept?.revoked ?? 0);
}

/**
 * The organization's members by e-mail; with `page.limit`, one page of them and the `after` of the next (null on
 * the last), so that an organization of thousands of people is read a page at a time.
 */
export async function listMembers(
  env: Env,
  organizationId: string,
  page: { limit?: number | null; after?: string | null } = {},
): Promise<{ members: MemberRecord[]; nextAfter: string | null }> {
  await getOrganization(env, organizationId);
  const directory = directoryStub(env);
  const { items: members, nextAfter } = await pageByName(
    (limit, after) => directory.members(organizationId, limit, after),
    { limit: page.limit ?? null, after: page.after ?? null },
    (member) => member.email,
  );
  return { members, nextAfter };
}

export async function putMember(
  env: Env,
  organizationId: string,
  emailInput: unknown,
  role: unknown,
  actor: Actor,
): Promise<{ member: MemberRecord; grantsRevoked: number }> {
  const email = checkedEmail(emailInput);
  checkedRole(role, "member");
  const record = await getOrganization(env, organizationId);
  const put = await directoryStub(env).putMember(organizationId, email, role, actorName(actor));
  if (!put.ok) throw refused(put);
  await organizationChanged(env, organizationId);
  const keep = organizationGrantable(record.settings, role);
  const grantsRevoked = await revokeMemberGrants(env, organizationId, put.subjects, keep);
  return { member: put.member, grantsRevoked };
}

export async function removeMember(
  env: Env,
  organizationId: string,
  emailInput: unknown,
  actor: Actor,
): Promise<{ member: MemberRecord; grantsRevoked: number }> {
  const email = checkedEmail(emailInput);
  const removed = await directoryStub(env).removeMember(organizationId, email, actorName(actor));
  if (!removed.ok) throw refused(removed);
  await organizationChanged(env, organizationId);
  // Every subject the member signed in with holds grants of its own (src/directory/member-subjects.ts).
  const grantsRevoked = await revokeMemberGrants(env, organizationId, removed.subjects, []);
  return { member: removed.member, grantsRevoked };
}

// ---- invitations ------------------------------------------------------------------------------------------------

export const INVITATION_DAYS = 7;

/** The SHA-256 of an invitation link's token: only the hash is stored. */
export async function invitationHash(token: string): Promise<string> {
  return sha256Hex(token);
}

/**
 * Invites `email` with `role`: a single-use link, valid INVITATION_DAYS days, shown once in the answer (only its
 * hash is stored). Whoever opens it signs in with that address and becomes a member with that role.
 */
export async function createInvitation(
  env: Env,
  organizationId: string,
  emailInput: unknown,
  role: unknown,
  actor: Actor,
): Promise<{ invitation: InvitationRecord; link: string }> {
  const email = checkedEmail(emailInput);
  checkedRole(role, "invitation");
  const token = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const expiresAt = Date.now() + INVITATION_DAYS * 24 * 60 * 60 * 1000;
  const created = await directoryStub(env).invite(
    organizationId,
    email,
    role,
    await invitationHash(token),
    expiresAt,
    actorName(actor),
  );
  if (!created.ok) throw refused(created);
  return { invitation: created.invitation, link: new URL(`/invitations/${token}`, env.PUBLIC_URL).href };
}

export const INVITATIONS_PER_PAGE = 100;

/**
 * A page of the organization's invitations, newest first. `before`: the `nextBefore` of the previous page;
 * `nextBefore` is null on the last page.
 */
export async function listInvitations(
  env: Env,
  organizationId: string,
  page: { limit?: number | null; before?: number | null } = {},
): Promise<{ invitations: InvitationRecord[]; nextBefore: number | null }> {
  await getOrganization(env, organizationId);
  return directoryStub(env).invitations(organizationId, page.limit ?? INVITATIONS_PER_PAGE, page.before ?? null);
}

/** Withdraws an invitation not used yet, by the id its list shows: its link stops working at once. */
export async function withdrawInvitation(
  env: Env,
  organizationId: string,
  id: unknown,
  actor: Actor,
): Promise<InvitationRecord> {
  if (typeof id !== "string" || !INVITATION_ID.test(id))
    throw new Failure(
      "invalid_input",
      `Invalid invitation id "${String(id).slice(0, 40)}": pass the 12 lower-case hexadecimal characters the invitations list shows as its id.`,
      { field: "id" },
      "invalid_path",
    );
  const withdrawn = await directoryStub(env).withdrawInvitation(organizationId, id, actorName(actor));
  if (!withdrawn.ok) throw refused(withdrawn);
  return withdrawn.invitation;
}

// ---- export and deletion ----------------------------------------------------------------------------------------

/**
 * A JSON archive of the organization: settings (secrets only as set/unset), members, the whole change log, and every
 * row of its contract store (CI keys, projects from before the split with their contract versions, snapshots,
 * verdicts, documents as base64) and of each project's own store (`contracts.project_stores`, by project), then the
 * content held in the bucket (`contracts.bucket_content`, `{hash, base64}`, with `project` for a project store's),
 * streamed a page of members, changes, rows or one document at a time (src/organizations/export-reader.ts), so no
 * part of it sits in memory whole. Downloading it to its end is what allows a deletion: the organization is marked exported only then,
 * so a download that breaks off (or a store that cannot be read) leaves the deletion refused.
 */
export async function exportOrganization(env: Env, organizationId: string): Promise<ReadableStream<Uint8Array>> {
  let place = exportStart(organizationView(await getOrganization(env, organizationId)));
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Each pull gives text (a pull that gave none would not be called again) or ends the archive.
      for (;;) {
        const piece = await nextExportPiece(env, organizationId, place);
        if (piece === null) {
          await markExported(env, organizationId);
          controller.close();
          return;
        }
        place = piece.place;
        if (piece.text) return controller.enqueue(encoder.encode(piece.text));
      }
    },
  });
}

/** Notes that an archive of the organization was downloaded to its end: what a deletion asks for. */
async function markExported(env: Env, organizationId: string): Promise<void> {
  const marked = await directoryStub(env).markExported(organizationId, "operator");
  if (!marked.ok) throw refused(marked);
  await organizationChanged(env, organizationId);
}

/**
 * Starts writing the organization's archive into the bucket in the background (src/organizations/export-job.ts),
 * the same archive as exportOrganization's, for an organization too large to read in one request; answers the job.
 * One runs at a time: asked again while it runs, the running one is answered.
 */
export async function startExport(env: Env, organizationId: string): Promise<ExportJob> {
  const organization = organizationView(await getOrganization(env, organizationId));
  return organizationExporter(env, organizationId).start(organization);
}

/** The organization's background export, as startExport answered it and as it has gone on since. */
export async function exportJob(env: Env, organizationId: string, exportId: string): Promise<ExportJob> {
  await getOrganization(env, organizationId);
  const job = await organizationExporter(env, organizationId).job();
  if (!job || job.id !== exportId)
    throw new Failure(
      "not_found",
      `Organization "${organizationId}" has no export "${exportId}"${job ? ` (its latest is "${job.id}")` : ""}: start one with POST ${OPERATOR_EXPORTS}.`,
      {},
      "unknown_export",
    );
  return job;
}

const OPERATOR_EXPORTS = "/operator/v1/organizations/{id}/exports";

/**
 * A complete background export's archive, read from the bucket in one stream. Like the streamed export, it counts
 * as the export a deletion needs only once downloaded to its end.
 */
export async function exportArchive(
  env: Env,
  organizationId: string,
  exportId: string,
): Promise<{ body: ReadableStream<Uint8Array>; size: number }> {
  const job = await exportJob(env, organizationId, exportId);
  if (job.status !== "complete")
    throw new Failure(
      "conflict",
      job.status === "running"
        ? `Export "${exportId}" is still being written (${job.bytes} bytes in ${job.batches} batches so far): ask GET ${OPERATOR_EXPORTS}/${exportId} until its status is "complete".`
        : `Export "${exportId}" is ${job.status}${job.error ? ` (${job.error})` : ""}: start a new one with POST ${OPERATOR_EXPORTS}.`,
      { status: job.status },
      "export_not_ready",
    );
  const object = await env.DOCUMENTS.get(archiveKey(organizationId, exportId));
  if (!object)
    throw new Failure(
      "not_found",
      `Export "${exportId}" is no longer stored: start a new one with POST ${OPERATOR_EXPORTS}.`,
      {},
      "unknown_export",
    );
  // A stream of a stated length, so the answer carries its Content-Length, fed a chunk at a time: a write is done
  // once the client has taken it, so the organization is marked exported after its last byte was taken, and a
  // download that breaks off ends the copy without marking it.
  const sized = new FixedLengthStream(object.size);
  const copy = async () => {
    const reader = object.body.getReader();
    const writer = sized.writable.getWriter();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) await writer.write(read.value);
      await markExported(env, organizationId);
      await writer.close();
    } catch (error) {
      await Promise.allSettled([reader.cancel(), writer.abort(error)]);
      logWarn("export archive download ended early", { organizationId, exportId, error });
    }
  };
  void copy();
  return { body: sized.readable, size: object.size };
}

/** Starts the deletion: refused at once everywhere, grants revoked, data removed after the grace period. */
export async function deleteOrganization(env: Env, organizationId: string): Promise<OrganizationRecord> {
  const deleting = await directoryStub(env).beginDeletion(organizationId, "operator");
  if (!deleting.ok) throw refused(deleting);
  await organizationChanged(env, organizationId);
  await closeListenStreams(env, organizationId);
  // The organization is refused everywhere already (the gate): its grant sweep revokes every grant, then forgets who
  // held them (names included), a batch now and the rest by the sweeper's alarm. A sweep that cannot start is
  // logged, not answered as a failure of the deletion that has begun.
  await grantSweeper(env, organizationId)
    .sweep()
    .catch((error: unknown) => logWarn("grants of a deleted organization not swept", { organizationId, error }));
  return deleting.record;
}

export { organizationSettingsSchema };
