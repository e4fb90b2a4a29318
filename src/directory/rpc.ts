/**
 * What the organization directory (the Durable Object in store.ts) offers over RPC. Env types the DIRECTORY binding
 * by this interface, so no caller imports the class. Callers go through client.ts (the isolate cache) or the
 * services in src/organizations/admin.ts.
 */
import type {
  ChangeRecord,
  InvitationRecord,
  MemberRecord,
  OrganizationRecord,
  OrganizationSettings,
  OrganizationStatus,
  PlatformCaps,
} from "./settings";

export type SecretName = "signInClientSecret" | "upstreamCredential";

/** A refusal of a directory write: a code for machines, the field when one is at fault, words for people. */
export interface DirectoryRefusal {
  ok: false;
  code:
    | "unknown_organization"
    | "organization_exists"
    | "domain_claimed"
    | "stale_revision"
    | "not_allowed_in_status"
    | "export_required"
    | "last_admin"
    | "unknown_member"
    | "secret_key_missing"
    | "unknown_invitation"
    | "invitation_used"
    | "too_many_invitations"
    | "too_many_members"
    | "invitation_expired"
    | "invitation_wrong_person";
  message: string;
  field?: string;
}

export type DirectoryResult<T> = ({ ok: true } & T) | DirectoryRefusal;

/** What the hot path reads for one organization: its record and the upstream credential its calls send. */
export interface ResolvedOrganization {
  record: OrganizationRecord;
  upstreamCredential?: string;
  /** Bytes the organization may store: its own storageQuotaBytes, else the operator's caps.storageQuotaBytes. */
  storageQuotaBytes: number;
}

/** What the directory holds (GET /operator/v1/directory): its SQLite size and the rows of what grows in it. */
export interface DirectoryUsage {
  databaseBytes: number;
  organizations: Record<OrganizationStatus, number>;
  /** Member rows (removed members stay listed as `removed`). */
  members: number;
  invitations: { pending: number; total: number };
  changes: { entries: number; oldest: string | null; retentionDays: number };
  /**
   * Organizations whose view (view.ts) is still to be told of a change: normally 0, as views are told right after
   * each change; a number that stays up means views the directory cannot reach (it tries again every second).
   */
  viewsToTell: number;
}

/**
 * What bounds one organization, as its administrators see it (GET /api/v1/organization): its members and pending
 * invitations against their maximum, and the operator's ceilings on the settings it configures.
 */
export interface OrganizationLimits {
  members: { active: number; max: number };
  pendingInvitations: { pending: number; max: number };
  settings: Pick<PlatformCaps, "maxCallsPerMinute" | "maxAuditRetentionDays" | "maxSnapshotRetentionDays">;
}

/** The mapping data platform-provider sign-in needs (OIDC_ISSUER): an active organization's domains and claims. */
export interface SignInEntry {
  emailDomains: string[];
  claimValues: string[];
  defaultRole: string;
  /** The organization signs in at its own provider (settings.signIn). */
  ownProvider: boolean;
}

/** Whether a person who just signed in may enter, and with which role. */
export type Admission =
  | { ok: true; role: string }
  | {
      ok: false;
      reason: "removed" | "not-a-member" | "organization-unavailable" | "organization-full";
      message: string;
    };

export interface DirectoryRpc extends Rpc.DurableObjectBranded {
  resolve(organizationId: string): Promise<ResolvedOrganization | null>;
  /**
   * The active organizations a platform-provider sign-in can belong to: those whose `claimValues` hold one of
   * `claimValues`, or whose `emailDomains` hold `emailDomain`, by id (the only ones its mapping can choose).
   */
  signInCandidates(claimValues: readonly string[], emailDomain: string | null): Record<string, SignInEntry>;
  /** Whether an active organization signs its members in at its own provider (the sign-in page then offers it). */
  anyOwnProvider(): boolean;
  organizationForDomain(domain: string): string | null;
  signInClientSecret(organizationId: string): Promise<string | null>;
  /** Organizations by id, after `after` (from the first when null), at most `limit` (every one when null). */
  list(limit?: number | null, after?: string | null): OrganizationRecord[];
  organization(organizationId: string): OrganizationRecord | null;
  create(
    organizationId: string,
    settings: OrganizationSettings,
    actor: string,
  ): DirectoryResult<{ record: OrganizationRecord }>;
  update(
    organizationId: string,
    settings: OrganizationSettings,
    expectedRevision: number | null,
    actor: string,
    action: string,
  ): DirectoryResult<{ record: OrganizationRecord }>;
  setStatus(
    organizationId: string,
    status: Extract<OrganizationStatus, "active" | "suspended">,
    actor: string,
  ): DirectoryResult<{ record: OrganizationRecord }>;
  setSecret(
    organizationId: string,
    name: SecretName,
    value: string | null,
    actor: string,
  ): Promise<DirectoryResult<{ record: OrganizationRecord }>>;
  markExported(organizationId: string, actor: string): DirectoryResult<{ record: OrganizationRecord }>;
  beginDeletion(organizationId: string, actor: string): Promise<DirectoryResult<{ record: OrganizationRecord }>>;
  members(organizationId: string, limit?: number | null, after?: string | null): MemberRecord[];
  /**
   * The roles of the active members by each subject they signed in with (a subject may hold one per address), `[]`
   * for a subject only removed members signed in with; with `subjects`, only those subjects' (a page of holders).
   */
  subjectRoles(organizationId: string, subjects?: readonly string[] | null): Record<string, string[]>;
  putMember(
    organizationId: string,
    email: string,
    role: string,
    actor: string,
  ): DirectoryResult<{ member: MemberRecord; previousRole: string | null; subjects: string[] }>;
  /** `subjects`: every subject the member signed in with (src/directory/member-subjects.ts), for their grants. */
  removeMember(
    organizationId: string,
    email: string,
    actor: string,
  ): DirectoryResult<{ member: MemberRecord; subjects: string[] }>;
  invite(
    organizationId: string,
    email: string,
    role: string,
    tokenHash: string,
    expiresAt: number,
    actor: string,
  ): DirectoryResult<{ invitation: InvitationRecord }>;
  invitations(
    organizationId: string,
    limit: number,
    beforeSeq?: number | null,
  ): { invitations: InvitationRecord[]; nextBefore: number | null };
  withdrawInvitation(
    organizationId: string,
    id: string,
    actor: string,
  ): DirectoryResult<{ invitation: InvitationRecord }>;
  invitationPreview(tokenHash: string): DirectoryResult<{ invitation: InvitationRecord; organizationName: string }>;
  acceptInvitation(
    tokenHash: string,
    identity: { organizationId: string; email: string | null; subject: string },
  ): DirectoryResult<{ member: MemberRecord; organizationId: string }>;
  admit(organizationId: string, email: string | null, subject: string, mappedRole: string): Admission;
  /** The change log, newest first, at most `limit`; an organization's before `beforeSeq` when given (paging). */
  changes(organizationId: string | null, limit: number, beforeSeq?: number | null): ChangeRecord[];
  caps(): PlatformCaps;
  /** What the directory holds and its size: the deployment's one directory object, for the operator. */
  usage(): DirectoryUsage;
  limits(organizationId: string): OrganizationLimits;
  setCaps(caps: PlatformCaps, actor: string): PlatformCaps;
  reencryptSecrets(): Promise<{ reencrypted: number; unreadable: number }>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** The organization directory (src/directory/): one object for the deployment. */
    DIRECTORY: DurableObjectNamespace<DirectoryRpc>;
  }
}
