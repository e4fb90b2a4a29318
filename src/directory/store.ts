/**
 * The organization directory: one SQLite-backed Durable Object for the whole deployment, the source of truth for
 * which organizations exist, their settings, members, write-only secrets (encrypted), the platform's caps and the
 * log of every change. It serves the look-ups sign-in needs (e-mail domain to organization) and the hot path's
 * "resolve this organization" (read through the isolate cache in client.ts, so a warm isolate does not call it).
 *
 * Seed: on first start, and on the first start of an upgraded deployment, the organizations of the bundled
 * policies/organizations.json are written here as they are (same ids, domains, claims, default role), once each:
 * an organization the operator later deletes is not seeded again. Their upstreams keep coming from
 * policies/graphql/upstreams.json and Worker vars until their administrators set one here, so existing tokens,
 * grants, CI keys, contracts and audit records keep working unchanged.
 *
 * Views: the hot path reads an organization from its view (view.ts), which holds it in memory; each change logged
 * here lists the organization's view to be told, in the change's transaction, and the views listed are told at once
 * after it, then by the alarm (VIEW_RETRY_MS later, doubling up to VIEW_RETRY_MAX_MS) until each one has heard.
 *
 * Deletion: marked `deleting` (everything refused at once), data removed by an alarm after the grace period
 * (contracts, snapshots, verdicts, CI keys, audit trail, tolerance counts, members, invitations); the directory keeps
 * a tombstone and the change log's times, actions and actors, without what the entries held (members' addresses,
 * settings) and with members named only as "(member)".
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { getPolicy } from "../policy/load";
import { logInfo, logWarn } from "../lib/log";
import type {
  Admission,
  DirectoryRefusal,
  OrganizationLimits,
  DirectoryResult,
  DirectoryRpc,
  DirectoryUsage,
  ResolvedOrganization,
  SecretName,
  SignInEntry,
} from "./rpc";
import { isRemovedSubject, noteSubject, rolesBySubject, subjectsOf, upgradeMemberSubjects } from "./member-subjects";
import { openSecret, sealSecret, SecretKeyMissing, type SealedSecret } from "./secrets";
import {
  ORGANIZATION_STATUSES,
  platformCapsSchema,
  type ChangeRecord,
  type InvitationRecord,
  type MemberRecord,
  type OrganizationRecord,
  type OrganizationSettings,
  type OrganizationStatus,
  type PlatformCaps,
} from "./settings";
import { organizationView } from "./client";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS organizations (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    settings TEXT NOT NULL,
    revision INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    delete_after INTEGER,
    exported_at TEXT,
    seeded INTEGER NOT NULL DEFAULT 0
  )`,
  `CREATE TABLE IF NOT EXISTS email_domains (domain TEXT PRIMARY KEY, organization_id TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS secrets (
    organization_id TEXT NOT NULL,
    name TEXT NOT NULL,
    key_id TEXT NOT NULL,
    iv BLOB NOT NULL,
    ciphertext BLOB NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (organization_id, name)
  )`,
  `CREATE TABLE IF NOT EXISTS members (
    organization_id TEXT NOT NULL,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    status TEXT NOT NULL,
    subject TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (organization_id, email)
  )`,
  `CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    before TEXT,
    after TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS changes_by_organization ON changes (organization_id, seq)`,
  `CREATE TABLE IF NOT EXISTS platform (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS invitations (
    token_hash TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at TEXT,
    used_by TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS invitations_by_organization ON invitations (organization_id, created_at)`,
  // The list's order: an organization's invitations by rowid (an index holds the rowid after its columns).
  `CREATE INDEX IF NOT EXISTS invitations_by_organization_rowid ON invitations (organization_id)`,
  `CREATE TABLE IF NOT EXISTS seeded (organization_id TEXT PRIMARY KEY, time TEXT NOT NULL)`,
  // When a deleting organization's purge is next tried: its last try (so the others go first), or a minute after a
  // failure. No row: not tried yet, its turn is its grace end.
  `CREATE TABLE IF NOT EXISTS purge_turns (organization_id TEXT PRIMARY KEY, next_at INTEGER NOT NULL)`,
  // The organizations whose view (view.ts) is still to be told of a change: written with the change, in its
  // transaction, and removed once the view has dropped what it held (change_seq: the last change it is told of).
  `CREATE TABLE IF NOT EXISTS view_changes (organization_id TEXT PRIMARY KEY, change_seq INTEGER NOT NULL)`,
];

interface OrganizationRow extends Record<string, SqlStorageValue> {
  id: string;
  status: string;
  settings: string;
  revision: number;
  created_at: string;
  updated_at: string;
  delete_after: number | null;
  exported_at: string | null;
  seeded: number;
}

interface MemberRow extends Record<string, SqlStorageValue> {
  email: string;
  role: string;
  status: string;
  subject: string | null;
  updated_at: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * How long a downloaded export allows a deletion: an older one may miss what the organization wrote since, and the
 * export is the data's only copy once the deletion has run.
 */
const EXPORT_VALID_MS = DAY_MS;
/** Claim values of one sign-in matched against the organizations (a claim is the provider's, not the member's). */
const MAX_SIGN_IN_CLAIM_VALUES = 100;
/** Organizations whose data one alarm starts removing; the rest (and what a purge leaves) go on in the next. */
const PURGES_PER_ALARM = 10;
const PURGE_NEXT_MS = 1_000;
/**
 * Expired change-log entries removed at most per logged change: an upgraded deployment's backlog drains over its
 * next changes, and a change never waits on a large delete.
 */
const CHANGES_PRUNED_PER_LOG = 100;

/** An invitation's id: the start of its token's hash (the hash itself, and the link, are never shown). */
const INVITATION_ID_LENGTH = 12;

/** Pending invitations an organization holds at most: each is a live link, and the directory is the deployment's. */
export const MAX_PENDING_INVITATIONS = 1_000;

/** How long used and expired invitations stay listed after they were made. */
const INVITATIONS_KEPT_MS = 30 * DAY_MS;
const PURGE_RETRY_MS = 60_000;
/**
 * When views could not be told of a change, the alarm tries again this much later, twice as late after each round
 * that still fails, up to VIEW_RETRY_MAX_MS (a view re-reads the directory within VIEW_MAX_AGE_MS, view.ts, whether
 * told or not); a round that tells every view starts again from VIEW_RETRY_MS.
 */
const VIEW_RETRY_MS = 1_000;
const VIEW_RETRY_MAX_MS = 30_000;
/** Views told at once, in parallel. */
const VIEWS_PER_ROUND = 50;

function refusal(code: Extract<DirectoryResult<object>, { ok: false }>["code"], message: string, field?: string) {
  return { ok: false as const, code, message, ...(field ? { field } : {}) };
}

/** The bundled organizations as directory settings (policies/organizations.json). */
export function seedSettings(): Array<{ id: string; settings: OrganizationSettings }> {
  return Object.entries(getPolicy().organizations).map(([id, org]) => ({
    id,
    settings: {
      name: org.name,
      emailDomains: org.emailDomains.map((domain) => domain.toLowerCase()),
      claimValues: org.claimValues,
      defaultRole: org.defaultRole,
      membersOnly: false,
    },
  }));
}

export class OrganizationDirectory extends DurableObject<Env> implements DirectoryRpc {
  private readonly sql: SqlStorage;
  /** The views being told (tellViews), and whether a change was listed since that round began. */
  private telling: Promise<void> | undefined;
  private listedSince = false;
  /** How much later the alarm tries the views that could not be told again (VIEW_RETRY_MS, doubling). */
  private viewRetryMs = VIEW_RETRY_MS;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      for (const statement of SCHEMA) this.sql.exec(statement);
      upgradeMemberSubjects(this.sql);
      this.upgradeDeletedOrganizations();
      this.seed();
      // Views a previous run of this object could not tell (it was evicted, or they were unreachable).
      if (this.sql.exec(`SELECT 1 FROM view_changes LIMIT 1`).toArray().length > 0) this.tellViewsSoon();
    });
  }

  /**
   * What a deleted organization's directory rows held of people goes with the rest of its data (its export holds
   * them): its invitations, and in its change log what the entries held (addresses, roles, settings) and members'
   * names as actors. The log keeps what happened and when, and the deletion's own entries.
   */
  private forgetPeopleOf(organizationId: string): void {
    this.sql.exec(`DELETE FROM invitations WHERE organization_id = ?`, organizationId);
    this.sql.exec(
      `UPDATE changes SET before = NULL, after = NULL
       WHERE organization_id = ? AND action NOT IN ('organization.deletion-started', 'organization.deleted')`,
      organizationId,
    );
    this.sql.exec(
      `UPDATE changes SET actor = '(member)' WHERE organization_id = ? AND actor NOT IN ('operator', 'platform')`,
      organizationId,
    );
  }

  /** Organizations deleted before deletions forgot people (forgetPeopleOf) forget them now, once. */
  private upgradeDeletedOrganizations(): void {
    const marker = "upgrade:deleted-organizations-forget-people";
    if (this.sql.exec(`SELECT 1 FROM platform WHERE key = ?`, marker).toArray().length) return;
    this.ctx.storage.transactionSync(() => {
      const deleted = this.sql.exec<{ id: string }>(`SELECT id FROM organizations WHERE status = 'deleted'`).toArray();
      for (const { id } of deleted) this.forgetPeopleOf(id);
      this.sql.exec(`INSERT INTO platform (key, value) VALUES (?, ?)`, marker, new Date().toISOString());
    });
  }

  /** Writes each bundled organization once, in one transaction; never again once seeded (a deletion stays). */
  private seed(): void {
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      for (const { id, settings } of seedSettings()) {
        if (this.sql.exec(`SELECT 1 FROM seeded WHERE organization_id = ?`, id).toArray().length) continue;
        this.sql.exec(`INSERT INTO seeded (organization_id, time) VALUES (?, ?)`, id, now);
        if (this.row(id)) continue;
        this.sql.exec(
          `INSERT INTO organizations (id, status, settings, revision, created_at, updated_at, seeded) VALUES (?, 'active', ?, 1, ?, ?, 1)`,
          id,
          JSON.stringify(settings),
          now,
          now,
        );
        for (const domain of settings.emailDomains)
          this.sql.exec(`INSERT OR IGNORE INTO email_domains (domain, organization_id) VALUES (?, ?)`, domain, id);
        this.logChange(id, "platform", "organization.seeded", null, settings);
      }
    });
  }

  // ---- reading ------------------------------------------------------------------------------------------------

  private row(id: string): OrganizationRow | undefined {
    return this.sql.exec<OrganizationRow>(`SELECT * FROM organizations WHERE id = ?`, id).toArray()[0];
  }

  private secretNames(id: string): Set<string> {
    return new Set(
      this.sql
        .exec<{ name: string }>(`SELECT name FROM secrets WHERE organization_id = ?`, id)
        .toArray()
        .map((row) => row.name),
    );
  }

  private recordOf(row: OrganizationRow): OrganizationRecord {
    const secrets = this.secretNames(row.id);
    return {
      id: row.id,
      status: row.status as OrganizationStatus,
      settings: JSON.parse(row.settings) as OrganizationSettings,
      revision: row.revision,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(row.delete_after !== null ? { deleteAfter: new Date(row.delete_after).toISOString() } : {}),
      ...(row.exported_at ? { exportedAt: row.exported_at } : {}),
      secrets: {
        signInClientSecret: secrets.has("signInClientSecret"),
        upstreamCredential: secrets.has("upstreamCredential"),
      },
      seeded: row.seeded === 1,
    };
  }

  private async secretValue(id: string, name: SecretName): Promise<string | undefined> {
    const row = this.sql
      .exec<{ key_id: string; iv: ArrayBuffer; ciphertext: ArrayBuffer }>(
        `SELECT key_id, iv, ciphertext FROM secrets WHERE organization_id = ? AND name = ?`,
        id,
        name,
      )
      .toArray()[0];
    if (!row) return undefined;
    const sealed: SealedSecret = {
      keyId: row.key_id,
      iv: new Uint8Array(row.iv),
      ciphertext: new Uint8Array(row.ciphertext),
    };
    const value = await openSecret(this.env, id, name, sealed);
    if (value === undefined)
      logWarn("directory secret unreadable with the configured keys", { organizationId: id, name });
    return value;
  }

  async resolve(organizationId: string): Promise<ResolvedOrganization | null> {
    const row = this.row(organizationId);
    if (!row) return null;
    const record = this.recordOf(row);
    const credential = record.secrets.upstreamCredential
      ? await this.secretValue(organizationId, "upstreamCredential")
      : undefined;
    return {
      record,
      storageQuotaBytes: record.settings.storageQuotaBytes ?? this.caps().storageQuotaBytes,
      ...(credential !== undefined ? { upstreamCredential: credential } : {}),
    };
  }

  signInCandidates(claimValues: readonly string[], emailDomain: string | null): Record<string, SignInEntry> {
    const entries: Record<string, SignInEntry> = {};
    // Only the active organizations a sign-in's claims can name: one statement here, whatever their number, instead
    // of every organization's settings sent to and read by the Worker on each sign-in.
    const rows = this.sql.exec<OrganizationRow>(
      `SELECT * FROM organizations AS o WHERE status = 'active' AND (
         EXISTS (SELECT 1 FROM json_each(o.settings, '$.claimValues') AS c WHERE c.value IN (SELECT value FROM json_each(?)))
         OR EXISTS (SELECT 1 FROM json_each(o.settings, '$.emailDomains') AS d WHERE lower(d.value) = ?))`,
      JSON.stringify(claimValues.slice(0, MAX_SIGN_IN_CLAIM_VALUES)),
      emailDomain?.toLowerCase() ?? null,
    );
    for (const row of rows) {
      const settings = JSON.parse(row.settings) as OrganizationSettings;
      entries[row.id] = {
        emailDomains: settings.emailDomains,
        claimValues: settings.claimValues,
        defaultRole: settings.defaultRole,
        ownProvider: settings.signIn !== undefined,
      };
    }
    return entries;
  }

  anyOwnProvider(): boolean {
    return (
      this.sql
        .exec<{ any: number }>(
          `SELECT EXISTS (SELECT 1 FROM organizations
             WHERE status = 'active' AND json_extract(settings, '$.signIn') IS NOT NULL) AS any`,
        )
        .one().any === 1
    );
  }

  organizationForDomain(domain: string): string | null {
    return (
      this.sql
        .exec<{ organization_id: string }>(
          `SELECT organization_id FROM email_domains WHERE domain = ?`,
          domain.toLowerCase(),
        )
        .toArray()[0]?.organization_id ?? null
    );
  }

  async signInClientSecret(organizationId: string): Promise<string | null> {
    return (await this.secretValue(organizationId, "signInClientSecret")) ?? null;
  }

  list(limit: number | null = null, after: string | null = null): OrganizationRecord[] {
    return this.sql
      .exec<OrganizationRow>(`SELECT * FROM organizations WHERE id > ? ORDER BY id LIMIT ?`, after ?? "", limit ?? -1)
      .toArray()
      .map((row) => this.recordOf(row));
  }

  organization(organizationId: string): OrganizationRecord | null {
    const row = this.row(organizationId);
    return row ? this.recordOf(row) : null;
  }

  // ---- writing ------------------------------------------------------------------------------------------------

  private logChange(organizationId: string, actor: string, action: string, before: unknown, after: unknown): void {
    this.pruneChangeLog();
    const { seq } = this.sql
      .exec<{ seq: number }>(
        `INSERT INTO changes (time, organization_id, actor, action, before, after) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq`,
        new Date().toISOString(),
        organizationId,
        actor,
        action,
        before === null || before === undefined ? null : JSON.stringify(before),
        after === null || after === undefined ? null : JSON.stringify(after),
      )
      .one();
    // The platform's own entries (caps) name no organization: views read those again within VIEW_MAX_AGE_MS.
    if (!this.row(organizationId)) return;
    this.sql.exec(
      `INSERT INTO view_changes (organization_id, change_seq) VALUES (?, ?)
       ON CONFLICT (organization_id) DO UPDATE SET change_seq = excluded.change_seq`,
      organizationId,
      seq,
    );
    this.tellViewsSoon();
  }

  /** Tells the listed views once the current turn (and the change's transaction) is over. */
  private tellViewsSoon(): void {
    this.listedSince = true;
    if (this.telling) return;
    this.telling = Promise.resolve()
      .then(() => this.tellViews())
      .catch((error: unknown) => logWarn("organization views not told; retried by the alarm", { error }))
      .finally(() => {
        this.telling = undefined;
        // A change listed after the round's last look at the list: another round.
        if (this.listedSince) this.tellViewsSoon();
      });
  }

  /**
   * Tells the listed views that their organization changed, VIEWS_PER_ROUND at a time, in the order of their changes,
   * once through the whole list: a view that cannot be reached stays listed and the others are still told, so a few
   * that keep failing never hold the rest back. A view listed again meanwhile (a newer change) comes later in the same
   * pass. What is left waits for the alarm, viewRetryMs later.
   */
  private async tellViews(): Promise<void> {
    let after = -1;
    let failed = 0;
    for (;;) {
      this.listedSince = false;
      const listed = this.sql
        .exec<{ organization_id: string; change_seq: number }>(
          `SELECT organization_id, change_seq FROM view_changes WHERE change_seq > ? ORDER BY change_seq LIMIT ?`,
          after,
          VIEWS_PER_ROUND,
        )
        .toArray();
      if (listed.length === 0) break;
      after = listed[listed.length - 1]!.change_seq;
      const told = await Promise.allSettled(
        listed.map(({ organization_id }) => organizationView(this.env, organization_id).forget()),
      );
      told.forEach((result, index) => {
        const { organization_id, change_seq } = listed[index]!;
        if (result.status === "rejected") {
          failed++;
          logWarn("organization view not told of a change", { organizationId: organization_id, error: result.reason });
          return;
        }
        this.sql.exec(
          `DELETE FROM view_changes WHERE organization_id = ? AND change_seq = ?`,
          organization_id,
          change_seq,
        );
      });
    }
    if (failed === 0) {
      this.viewRetryMs = VIEW_RETRY_MS;
      return;
    }
    await this.scheduleAlarm();
    this.viewRetryMs = Math.min(this.viewRetryMs * 2, VIEW_RETRY_MAX_MS);
  }

  /**
   * Removes change-log entries older than the platform's changeLogRetentionDays, up to CHANGES_PRUNED_PER_LOG, before
   * each change is logged: the log grows with what happens and is bounded by the retention, without an alarm. Entries
   * are read oldest first by seq, which grows with time, so a log with nothing expired costs one row read.
   */
  private pruneChangeLog(): void {
    const cutoff = new Date(Date.now() - this.caps().changeLogRetentionDays * DAY_MS).toISOString();
    const oldest = this.sql.exec<{ seq: number; time: string }>(
      `SELECT seq, time FROM changes ORDER BY seq LIMIT ?`,
      CHANGES_PRUNED_PER_LOG,
    );
    let last: number | null = null;
    // The cursor steps one row at a time: the loop stops at the first entry still kept.
    for (const row of oldest) {
      if (row.time >= cutoff) break;
      last = row.seq;
    }
    if (last !== null) this.sql.exec(`DELETE FROM changes WHERE seq <= ?`, last);
  }

  /** The refusal of the first domain of `domains` another organization holds, if any. */
  private domainRefusal(organizationId: string, domains: readonly string[]): DirectoryRefusal | undefined {
    for (const domain of domains) {
      const owner = this.organizationForDomain(domain);
      if (owner !== null && owner !== organizationId)
        return refusal(
          "domain_claimed",
          `The e-mail domain ${domain} belongs to another organization. Each domain belongs to one organization: remove it from this one, or ask the operator.`,
          "emailDomains",
        );
    }
    return undefined;
  }

  private writeDomains(organizationId: string, domains: readonly string[]): void {
    this.sql.exec(`DELETE FROM email_domains WHERE organization_id = ?`, organizationId);
    for (const domain of domains)
      this.sql.exec(`INSERT INTO email_domains (domain, organization_id) VALUES (?, ?)`, domain, organizationId);
  }

  create(
    organizationId: string,
    settings: OrganizationSettings,
    actor: string,
  ): DirectoryResult<{ record: OrganizationRecord }> {
    if (this.row(organizationId))
      return refusal(
        "organization_exists",
        `An organization with the id "${organizationId}" exists (or existed: ids of deleted organizations are not reused). Choose another id.`,
        "id",
      );
    const claimed = this.domainRefusal(organizationId, settings.emailDomains);
    if (claimed) return claimed;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT INTO organizations (id, status, settings, revision, created_at, updated_at) VALUES (?, 'active', ?, 1, ?, ?)`,
        organizationId,
        JSON.stringify(settings),
        now,
        now,
      );
      this.writeDomains(organizationId, settings.emailDomains);
      this.logChange(organizationId, actor, "organization.created", null, settings);
    });
    return { ok: true, record: this.organization(organizationId) as OrganizationRecord };
  }

  private writable(organizationId: string): { ok: true; row: OrganizationRow } | DirectoryRefusal {
    const row = this.row(organizationId);
    if (!row || row.status === "deleted")
      return refusal("unknown_organization", `There is no organization "${organizationId}".`);
    if (row.status === "deleting")
      return refusal(
        "not_allowed_in_status",
        `Organization "${organizationId}" is being deleted (its data is removed after ${row.delete_after ? new Date(row.delete_after).toISOString() : "its grace period"}); it cannot be changed.`,
      );
    return { ok: true, row };
  }

  update(
    organizationId: string,
    settings: OrganizationSettings,
    expectedRevision: number | null,
    actor: string,
    action: string,
  ): DirectoryResult<{ record: OrganizationRecord }> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const row = found.row;
    if (expectedRevision !== null && expectedRevision !== row.revision)
      return refusal(
        "stale_revision",
        `The settings changed since revision ${expectedRevision} was read (now ${row.revision}). Read them again, re-apply your change and retry.`,
        "revision",
      );
    const claimed = this.domainRefusal(organizationId, settings.emailDomains);
    if (claimed) return claimed;
    const before = JSON.parse(row.settings) as OrganizationSettings;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `UPDATE organizations SET settings = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
        JSON.stringify(settings),
        new Date().toISOString(),
        organizationId,
      );
      this.writeDomains(organizationId, settings.emailDomains);
      this.logChange(organizationId, actor, action, before, settings);
    });
    return { ok: true, record: this.organization(organizationId) as OrganizationRecord };
  }

  setStatus(
    organizationId: string,
    status: "active" | "suspended",
    actor: string,
  ): DirectoryResult<{ record: OrganizationRecord }> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const row = found.row;
    if (row.status !== status)
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(
          `UPDATE organizations SET status = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
          status,
          new Date().toISOString(),
          organizationId,
        );
        this.logChange(
          organizationId,
          actor,
          status === "suspended" ? "organization.suspended" : "organization.resumed",
          { status: row.status },
          { status },
        );
      });
    return { ok: true, record: this.organization(organizationId) as OrganizationRecord };
  }

  async setSecret(
    organizationId: string,
    name: SecretName,
    value: string | null,
    actor: string,
  ): Promise<DirectoryResult<{ record: OrganizationRecord }>> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    let sealed: SealedSecret | undefined;
    if (value !== null) {
      try {
        sealed = await sealSecret(this.env, organizationId, name, value);
      } catch (error) {
        if (error instanceof SecretKeyMissing) return refusal("secret_key_missing", error.message);
        throw error;
      }
    }
    const had = this.secretNames(organizationId).has(name);
    this.ctx.storage.transactionSync(() => {
      if (sealed)
        this.sql.exec(
          `INSERT INTO secrets (organization_id, name, key_id, iv, ciphertext, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (organization_id, name) DO UPDATE SET key_id = excluded.key_id, iv = excluded.iv, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
          organizationId,
          name,
          sealed.keyId,
          sealed.iv,
          sealed.ciphertext,
          new Date().toISOString(),
        );
      else this.sql.exec(`DELETE FROM secrets WHERE organization_id = ? AND name = ?`, organizationId, name);
      this.sql.exec(
        `UPDATE organizations SET revision = revision + 1, updated_at = ? WHERE id = ?`,
        new Date().toISOString(),
        organizationId,
      );
      // Never the value: only that it was set or cleared.
      this.logChange(
        organizationId,
        actor,
        `secret.${name}`,
        { [name]: had ? "set" : "unset" },
        { [name]: sealed ? "set" : "unset" },
      );
    });
    return { ok: true, record: this.organization(organizationId) as OrganizationRecord };
  }

  markExported(organizationId: string, actor: string): DirectoryResult<{ record: OrganizationRecord }> {
    const row = this.row(organizationId);
    if (!row || row.status === "deleted")
      return refusal("unknown_organization", `There is no organization "${organizationId}".`);
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`UPDATE organizations SET exported_at = ? WHERE id = ?`, new Date().toISOString(), organizationId);
      this.logChange(organizationId, actor, "organization.exported", null, null);
    });
    return { ok: true, record: this.organization(organizationId) as OrganizationRecord };
  }

  async beginDeletion(organizationId: string, actor: string): Promise<DirectoryResult<{ record: OrganizationRecord }>> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const row = found.row;
    const exportedAt = row.exported_at ? Date.parse(row.exported_at) : Number.NaN;
    if (!(exportedAt > Date.now() - EXPORT_VALID_MS))
      return refusal(
        "export_required",
        `Export organization "${organizationId}" first (GET /operator/v1/organizations/${organizationId}/export, downloaded to its end)${row.exported_at ? `: its last export, at ${row.exported_at}, is more than 24 hours old and may miss what was written since` : ""}. Its data is removed after deletion, and the export is its only copy.`,
      );
    const graceDays = this.caps().deletionGraceDays;
    const deleteAfter = Date.now() + graceDays * DAY_MS;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `UPDATE organizations SET status = 'deleting', delete_after = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
        deleteAfter,
        new Date().toISOString(),
        organizationId,
      );
      this.sql.exec(`DELETE FROM email_domains WHERE organization_id = ?`, organizationId);
      this.logChange(
        organizationId,
        actor,
        "organization.deletion-started",
        { status: row.status },
        {
          status: "deleting",
          deleteAfter: new Date(deleteAfter).toISOString(),
        },
      );
    });
    // No grace: the data goes now (its export was taken); otherwise the alarm removes it when the grace ends.
    if (graceDays === 0) await this.purgeDue();
    await this.scheduleAlarm();
    return { ok: true, record: this.organization(organizationId) as OrganizationRecord };
  }

  /**
   * Sets the alarm for the next purge: the earliest turn of a deleting organization (its grace end, or its next try),
   * at least PURGE_NEXT_MS away; or viewRetryMs away when views are still to be told of a change, if that is
   * sooner. An earlier alarm already set stays: it finds nothing due yet and sets this one.
   */
  private async scheduleAlarm(): Promise<void> {
    const purge = this.sql
      .exec<{ at: number | null }>(
        `SELECT MIN(MAX(o.delete_after, COALESCE(t.next_at, 0))) AS at FROM organizations o
         LEFT JOIN purge_turns t ON t.organization_id = o.id WHERE o.status = 'deleting'`,
      )
      .toArray()[0]?.at;
    const viewsLeft = this.sql.exec(`SELECT 1 FROM view_changes LIMIT 1`).toArray().length > 0;
    const candidates = [
      ...(purge === null || purge === undefined ? [] : [Math.max(purge, Date.now() + PURGE_NEXT_MS)]),
      ...(viewsLeft ? [Date.now() + this.viewRetryMs] : []),
    ];
    if (candidates.length === 0) return;
    const at = Math.min(...candidates);
    const current = await this.ctx.storage.getAlarm();
    // An alarm at or before now is the one running (or about to): it is not a later purge's.
    if (current === null || current > at || current <= Date.now()) await this.ctx.storage.setAlarm(at);
  }

  override async alarm(): Promise<void> {
    await this.purgeDue();
    // The views still listed, the purges' changes' among them, before the next alarm is set for what is left.
    await this.tellViews();
    await this.scheduleAlarm();
  }

  /**
   * Removes the data of organizations whose grace period is over, a bounded part per alarm (PURGES_PER_ALARM
   * organizations, each store's purge a bounded part of its own); keeps their tombstone and change log. Turns go to
   * the organizations that have waited longest: one that was just tried (its purge unfinished) goes behind the others,
   * and one whose purge failed waits PURGE_RETRY_MS, so a few that always fail never hold the rest back.
   */
  private async purgeDue(): Promise<void> {
    const now = Date.now();
    const due = this.sql
      .exec<{ id: string }>(
        `SELECT o.id FROM organizations o LEFT JOIN purge_turns t ON t.organization_id = o.id
         WHERE o.status = 'deleting' AND o.delete_after <= ? AND COALESCE(t.next_at, 0) <= ?
         ORDER BY COALESCE(t.next_at, o.delete_after), o.id LIMIT ?`,
        now,
        now,
        PURGES_PER_ALARM,
      )
      .toArray();
    const nextTurn = (id: string, at: number) =>
      this.sql.exec(`INSERT OR REPLACE INTO purge_turns (organization_id, next_at) VALUES (?, ?)`, id, at);
    for (const { id } of due) {
      try {
        const contracts = await this.env.CONTRACT_STORE.get(this.env.CONTRACT_STORE.idFromName(id)).purgeOrganization(
          id,
        );
        if (!contracts.done) {
          // A bounded part per call (its stores and their bucket spaces): a later alarm goes on.
          logInfo("organization data being removed", { organizationId: id, projectsLeft: contracts.projectsLeft });
          nextTurn(id, Date.now());
          continue;
        }
        const audit = await this.env.AUDIT_LOG.get(this.env.AUDIT_LOG.idFromName(id)).purgeOrganization(id);
        if (!audit.done) {
          // Its audit trail's day stores, a bounded number per call: a later alarm goes on.
          logInfo("organization audit trail being removed", { organizationId: id });
          nextTurn(id, Date.now());
          continue;
        }
        await this.env.TOLERANCE_COUNTER.get(this.env.TOLERANCE_COUNTER.idFromName(id)).purgeOrganization(id);
        await this.env.EXPORTER.get(this.env.EXPORTER.idFromName(id)).purge();
      } catch (error) {
        // Retried by a later alarm: the organization stays `deleting` (refused everywhere) until its data is gone.
        logWarn("organization data not yet removed", { organizationId: id, error });
        nextTurn(id, Date.now() + PURGE_RETRY_MS);
        continue;
      }
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(
          `UPDATE organizations SET status = 'deleted', settings = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
          JSON.stringify({
            name: `(deleted) ${id}`,
            emailDomains: [],
            claimValues: [],
            defaultRole: "member",
            membersOnly: true,
          }),
          new Date().toISOString(),
          id,
        );
        this.sql.exec(`DELETE FROM secrets WHERE organization_id = ?`, id);
        this.sql.exec(`DELETE FROM members WHERE organization_id = ?`, id);
        this.sql.exec(`DELETE FROM member_subjects WHERE organization_id = ?`, id);
        this.sql.exec(`DELETE FROM purge_turns WHERE organization_id = ?`, id);
        this.forgetPeopleOf(id);
        this.logChange(id, "platform", "organization.deleted", { status: "deleting" }, { status: "deleted" });
      });
      logInfo("organization deleted", { organizationId: id });
    }
  }

  // ---- members ------------------------------------------------------------------------------------------------

  private memberOf(row: MemberRow): MemberRecord {
    return {
      email: row.email,
      role: row.role,
      status: row.status as MemberRecord["status"],
      ...(row.subject ? { subject: row.subject } : {}),
      updatedAt: row.updated_at,
    };
  }

  private memberRow(organizationId: string, email: string): MemberRow | undefined {
    return this.sql
      .exec<MemberRow>(
        `SELECT email, role, status, subject, updated_at FROM members WHERE organization_id = ? AND email = ?`,
        organizationId,
        email.toLowerCase(),
      )
      .toArray()[0];
  }

  /** The organization's members by e-mail: at most `limit`, those after `after` when it is given. */
  members(organizationId: string, limit: number | null = null, after: string | null = null): MemberRecord[] {
    return this.sql
      .exec<MemberRow>(
        `SELECT email, role, status, subject, updated_at FROM members
         WHERE organization_id = ? AND email > ? ORDER BY email LIMIT ?`,
        organizationId,
        after ?? "",
        limit ?? -1,
      )
      .toArray()
      .map((row) => this.memberOf(row));
  }

  /** The roles of the organization's active members, by subject (member-subjects.ts). */
  subjectRoles(organizationId: string, subjects: readonly string[] | null = null): Record<string, string[]> {
    return rolesBySubject(this.sql, organizationId, subjects);
  }

  private activeAdmins(organizationId: string): string[] {
    return this.sql
      .exec<{ email: string }>(
        `SELECT email FROM members WHERE organization_id = ? AND status = 'active' AND role = 'admin'`,
        organizationId,
      )
      .toArray()
      .map((row) => row.email);
  }

  /**
   * Null while the organization may take one more active member (platform cap maxMembersPerOrganization), else
   * the refusal that says how to make room. Removed members' rows do not count: they only keep people out.
   */
  private roomForMember(organizationId: string): DirectoryRefusal | null {
    const cap = this.caps().maxMembersPerOrganization;
    const active = this.activeMemberCount(organizationId);
    if (active < cap) return null;
    return refusal(
      "too_many_members",
      `This organization has ${active} active members, the most this deployment allows (${cap}): remove members no longer needed (DELETE /api/v1/organization/members/{email}, or Remove on the console's Organization page), or ask the operator to raise maxMembersPerOrganization (PUT /operator/v1/caps).`,
    );
  }

  /** roomForMember for `email`, which takes no new place when it is an active member already. */
  private roomFor(organizationId: string, email: string): DirectoryRefusal | null {
    return this.memberRow(organizationId, email)?.status === "active" ? null : this.roomForMember(organizationId);
  }

  private activeMemberCount(organizationId: string): number {
    return this.sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM members WHERE organization_id = ? AND status = 'active'`,
        organizationId,
      )
      .one().n;
  }

  putMember(
    organizationId: string,
    email: string,
    role: string,
    actor: string,
  ): DirectoryResult<{ member: MemberRecord; previousRole: string | null; subjects: string[] }> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const key = email.toLowerCase();
    const existing = this.memberRow(organizationId, key);
    const admins = this.activeAdmins(organizationId);
    if (existing?.status === "active" && existing.role === "admin" && role !== "admin" && admins.length === 1)
      return refusal(
        "last_admin",
        `${key} is the organization's last administrator: make someone else an administrator first.`,
        "role",
      );
    // Already a member with this role: nothing is written and nothing logged (an idempotent PUT).
    if (existing?.status === "active" && existing.role === role)
      return {
        ok: true,
        member: this.memberOf(existing),
        previousRole: existing.role,
        subjects: subjectsOf(this.sql, organizationId, key),
      };
    if (existing?.status !== "active") {
      const full = this.roomForMember(organizationId);
      if (full) return { ...full, field: "email" };
    }
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT INTO members (organization_id, email, role, status, subject, updated_at) VALUES (?, ?, ?, 'active', NULL, ?)
         ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, status = 'active', updated_at = excluded.updated_at`,
        organizationId,
        key,
        role,
        now,
      );
      this.logChange(
        organizationId,
        actor,
        existing ? "member.changed" : "member.added",
        existing ? { email: key, role: existing.role, status: existing.status } : null,
        { email: key, role, status: "active" },
      );
    });
    return {
      ok: true,
      member: this.memberOf(this.memberRow(organizationId, key) as MemberRow),
      previousRole: existing?.status === "active" ? existing.role : null,
      subjects: subjectsOf(this.sql, organizationId, key),
    };
  }

  removeMember(
    organizationId: string,
    email: string,
    actor: string,
  ): DirectoryResult<{ member: MemberRecord; subjects: string[] }> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const key = email.toLowerCase();
    const existing = this.memberRow(organizationId, key);
    if (!existing || existing.status === "removed")
      return refusal("unknown_member", `${key} is not a member of "${organizationId}".`, "email");
    if (existing.role === "admin" && this.activeAdmins(organizationId).length === 1)
      return refusal(
        "last_admin",
        `${key} is the organization's last administrator: make someone else an administrator before removing them.`,
        "email",
      );
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `UPDATE members SET status = 'removed', updated_at = ? WHERE organization_id = ? AND email = ?`,
        new Date().toISOString(),
        organizationId,
        key,
      );
      this.logChange(
        organizationId,
        actor,
        "member.removed",
        { email: key, role: existing.role, status: "active" },
        {
          email: key,
          status: "removed",
        },
      );
    });
    return {
      ok: true,
      member: this.memberOf(this.memberRow(organizationId, key) as MemberRow),
      subjects: subjectsOf(this.sql, organizationId, key),
    };
  }

  /**
   * Sign-in's question: may this person enter, with which role? A removed member may not; a listed member gets the
   * role on the list (and their subject is noted, so their grants can be found when they are removed); anyone else
   * gets the role sign-in mapped, unless the organization admits members only.
   */
  admit(organizationId: string, email: string | null, subject: string, mappedRole: string): Admission {
    const row = this.row(organizationId);
    if (row?.status !== "active")
      return {
        ok: false,
        reason: "organization-unavailable",
        message: `Organization "${organizationId}" is not active on this deployment (suspended or deleted). Ask its administrator.`,
      };
    const settings = JSON.parse(row.settings) as OrganizationSettings;
    const member = email ? this.memberRow(organizationId, email) : undefined;
    // Removal follows the person, not only the address: someone removed who signs in with another (or an unverified)
    // address carries the same subject from the same provider.
    if (member?.status === "removed" || (!member && isRemovedSubject(this.sql, organizationId, subject)))
      return {
        ok: false,
        reason: "removed",
        message: "You were removed from this organization. Ask one of its administrators to invite you again.",
      };
    if (member) {
      if (member.subject !== subject)
        this.sql.exec(
          `UPDATE members SET subject = ? WHERE organization_id = ? AND email = ?`,
          subject,
          organizationId,
          member.email,
        );
      noteSubject(this.sql, organizationId, member.email, subject);
      return { ok: true, role: member.role };
    }
    if (settings.membersOnly)
      return {
        ok: false,
        reason: "not-a-member",
        message:
          "This organization admits only the people on its member list. Ask one of its administrators to add you.",
      };
    if (email) {
      const full = this.roomForMember(organizationId);
      if (full)
        return {
          ok: false,
          reason: "organization-full",
          message: `This organization has as many members as this deployment allows. Ask one of its administrators to remove members no longer needed, or the operator to raise the limit.`,
        };
      this.sql.exec(
        `INSERT OR IGNORE INTO members (organization_id, email, role, status, subject, updated_at) VALUES (?, ?, ?, 'active', ?, ?)`,
        organizationId,
        email.toLowerCase(),
        mappedRole,
        subject,
        new Date().toISOString(),
      );
      noteSubject(this.sql, organizationId, email, subject);
    }
    return { ok: true, role: mappedRole };
  }

  // ---- invitations --------------------------------------------------------------------------------------------

  private pendingInvitationCount(organizationId: string, now: number): number {
    return this.sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM invitations WHERE organization_id = ? AND used_at IS NULL AND expires_at > ?`,
        organizationId,
        now,
      )
      .one().n;
  }

  private invitationOf(row: Record<string, SqlStorageValue>): InvitationRecord {
    const used = row.used_at !== null;
    const expired = !used && Number(row.expires_at) <= Date.now();
    return {
      id: String(row.token_hash).slice(0, INVITATION_ID_LENGTH),
      organizationId: String(row.organization_id),
      email: String(row.email),
      role: String(row.role),
      createdBy: String(row.created_by),
      createdAt: String(row.created_at),
      expiresAt: new Date(Number(row.expires_at)).toISOString(),
      status: used ? "used" : expired ? "expired" : "pending",
      ...(used ? { usedAt: String(row.used_at) } : {}),
    };
  }

  invite(
    organizationId: string,
    email: string,
    role: string,
    tokenHash: string,
    expiresAt: number,
    actor: string,
  ): DirectoryResult<{ invitation: InvitationRecord }> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const key = email.toLowerCase();
    const now = Date.now();
    const pending = this.pendingInvitationCount(organizationId, now);
    if (pending >= MAX_PENDING_INVITATIONS)
      return refusal(
        "too_many_invitations",
        `This organization has ${pending} pending invitations, the most it may hold: withdraw those no longer wanted (DELETE /api/v1/organization/invitations/{id}, or Withdraw on the console's Organization page), or wait until they are used or expire.`,
      );
    const full = this.roomFor(organizationId, key);
    if (full) return { ...full, field: "email" };
    this.ctx.storage.transactionSync(() => {
      // Used and expired invitations are kept INVITATIONS_KEPT_MS after they were made, then go as the next is made:
      // the table holds what an administrator still acts on, not every invitation ever sent (the log has those).
      this.sql.exec(
        `DELETE FROM invitations WHERE organization_id = ? AND (used_at IS NOT NULL OR expires_at <= ?) AND created_at < ?`,
        organizationId,
        now,
        new Date(now - INVITATIONS_KEPT_MS).toISOString(),
      );
      this.sql.exec(
        `INSERT INTO invitations (token_hash, organization_id, email, role, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        tokenHash,
        organizationId,
        key,
        role,
        actor,
        new Date().toISOString(),
        expiresAt,
      );
      this.logChange(organizationId, actor, "invitation.created", null, {
        email: key,
        role,
        expiresAt: new Date(expiresAt).toISOString(),
      });
    });
    const row = this.sql.exec(`SELECT * FROM invitations WHERE token_hash = ?`, tokenHash).toArray()[0];
    return { ok: true, invitation: this.invitationOf(row as Record<string, SqlStorageValue>) };
  }

  /**
   * A page of the organization's invitations, newest first (by rowid, which only grows as they are made), at most
   * `limit`, older than `beforeSeq` when given; `nextBefore` is the rowid to pass for the next page, null on the last.
   */
  invitations(
    organizationId: string,
    limit: number,
    beforeSeq: number | null = null,
  ): { invitations: InvitationRecord[]; nextBefore: number | null } {
    const rows = this.sql
      .exec(
        `SELECT rowid AS seq, * FROM invitations WHERE organization_id = ? AND (? IS NULL OR rowid < ?)
         ORDER BY rowid DESC LIMIT ?`,
        organizationId,
        beforeSeq,
        beforeSeq,
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    return {
      invitations: page.map((row) => this.invitationOf(row)),
      nextBefore: rows.length > limit ? Number(page.at(-1)?.seq) : null,
    };
  }

  /**
   * Withdraws an invitation that was not used (pending or expired), by the id the list shows: its link stops working
   * at once (it is deleted; the change log keeps `invitation.withdrawn`). A used one is refused: its person is a
   * member, whom removing the member takes away.
   */
  withdrawInvitation(
    organizationId: string,
    id: string,
    actor: string,
  ): DirectoryResult<{ invitation: InvitationRecord }> {
    const found = this.writable(organizationId);
    if (!found.ok) return found;
    const row = this.sql
      .exec(
        `SELECT * FROM invitations WHERE organization_id = ? AND substr(token_hash, 1, ?) = ?`,
        organizationId,
        INVITATION_ID_LENGTH,
        id,
      )
      .toArray()[0];
    if (!row)
      return refusal(
        "unknown_invitation",
        `No invitation ${id} in this organization: it was withdrawn or removed already; GET /api/v1/organization/invitations lists those there are.`,
      );
    const invitation = this.invitationOf(row);
    if (invitation.status === "used")
      return refusal(
        "invitation_used",
        `Invitation ${id} was already used: ${invitation.email} is a member now. Remove the member instead.`,
      );
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`DELETE FROM invitations WHERE token_hash = ?`, row.token_hash);
      this.logChange(
        organizationId,
        actor,
        "invitation.withdrawn",
        { email: invitation.email, role: invitation.role },
        null,
      );
    });
    return { ok: true, invitation };
  }

  /** What an invitation link shows before anyone signs in: the organization's name and the role, or why not. */
  invitationPreview(tokenHash: string): DirectoryResult<{ invitation: InvitationRecord; organizationName: string }> {
    const row = this.sql.exec(`SELECT * FROM invitations WHERE token_hash = ?`, tokenHash).toArray()[0];
    if (!row) return refusal("unknown_invitation", "This invitation link is not valid: ask for a new one.");
    const invitation = this.invitationOf(row);
    const organization = this.row(invitation.organizationId);
    if (organization?.status !== "active")
      return refusal("unknown_invitation", "The organization of this invitation is not active any more.");
    return {
      ok: true,
      invitation,
      organizationName: (JSON.parse(organization.settings) as OrganizationSettings).name,
    };
  }

  /**
   * Uses an invitation: single use, before it expires, by the person it names (their signed-in e-mail) in its
   * organization. Makes them a member with the invitation's role, in one transaction with marking it used.
   */
  acceptInvitation(
    tokenHash: string,
    identity: { organizationId: string; email: string | null; subject: string },
  ): DirectoryResult<{ member: MemberRecord; organizationId: string }> {
    const preview = this.invitationPreview(tokenHash);
    if (!preview.ok) return preview;
    const { invitation } = preview;
    if (invitation.status === "used")
      return refusal(
        "invitation_used",
        "This invitation was already used. Ask the organization's administrator for a new one.",
      );
    if (invitation.status === "expired")
      return refusal(
        "invitation_expired",
        `This invitation expired on ${invitation.expiresAt}. Ask the organization's administrator for a new one.`,
      );
    if (identity.organizationId !== invitation.organizationId)
      return refusal(
        "invitation_wrong_person",
        `This invitation is for ${preview.organizationName}; you signed in to another organization. Sign out and sign in with the account it was sent to.`,
      );
    if ((identity.email ?? "").toLowerCase() !== invitation.email)
      return refusal(
        "invitation_wrong_person",
        "This invitation was sent to another e-mail address than the one you signed in with. Sign in with the invited address.",
      );
    if (this.roomFor(invitation.organizationId, invitation.email))
      return refusal(
        "too_many_members",
        "The organization of this invitation has as many members as this deployment allows. Ask its administrator to make room; this invitation stays valid until it expires.",
      );
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `UPDATE invitations SET used_at = ?, used_by = ? WHERE token_hash = ?`,
        now,
        identity.subject,
        tokenHash,
      );
      this.sql.exec(
        `INSERT INTO members (organization_id, email, role, status, subject, updated_at) VALUES (?, ?, ?, 'active', ?, ?)
         ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, status = 'active', subject = excluded.subject, updated_at = excluded.updated_at`,
        invitation.organizationId,
        invitation.email,
        invitation.role,
        identity.subject,
        now,
      );
      noteSubject(this.sql, invitation.organizationId, invitation.email, identity.subject);
      this.logChange(invitation.organizationId, invitation.email, "invitation.accepted", null, {
        email: invitation.email,
        role: invitation.role,
      });
    });
    return {
      ok: true,
      organizationId: invitation.organizationId,
      member: this.memberOf(this.memberRow(invitation.organizationId, invitation.email) as MemberRow),
    };
  }

  // ---- the log, caps and keys ---------------------------------------------------------------------------------

  changes(organizationId: string | null, limit: number, beforeSeq: number | null = null): ChangeRecord[] {
    const rows = (
      organizationId === null
        ? this.sql.exec(
            `SELECT * FROM changes WHERE (? IS NULL OR seq < ?) ORDER BY seq DESC LIMIT ?`,
            beforeSeq,
            beforeSeq,
            limit,
          )
        : this.sql.exec(
            `SELECT * FROM changes WHERE organization_id = ? AND (? IS NULL OR seq < ?) ORDER BY seq DESC LIMIT ?`,
            organizationId,
            beforeSeq,
            beforeSeq,
            limit,
          )
    ).toArray();
    return rows.map((row) => ({
      seq: Number(row.seq),
      time: String(row.time),
      organizationId: String(row.organization_id),
      actor: String(row.actor),
      action: String(row.action),
      before: row.before === null ? null : (JSON.parse(String(row.before)) as unknown),
      after: row.after === null ? null : (JSON.parse(String(row.after)) as unknown),
    }));
  }

  limits(organizationId: string): OrganizationLimits {
    const caps = this.caps();
    return {
      members: { active: this.activeMemberCount(organizationId), max: caps.maxMembersPerOrganization },
      pendingInvitations: {
        pending: this.pendingInvitationCount(organizationId, Date.now()),
        max: MAX_PENDING_INVITATIONS,
      },
      settings: {
        maxCallsPerMinute: caps.maxCallsPerMinute,
        maxAuditRetentionDays: caps.maxAuditRetentionDays,
        maxSnapshotRetentionDays: caps.maxSnapshotRetentionDays,
      },
    };
  }

  usage(): DirectoryUsage {
    const count = (query: string, ...bindings: SqlStorageValue[]) =>
      this.sql.exec<{ n: number }>(query, ...bindings).one().n;
    const organizations = Object.fromEntries(ORGANIZATION_STATUSES.map((status) => [status, 0])) as Record<
      OrganizationStatus,
      number
    >;
    for (const row of this.sql.exec<{ status: OrganizationStatus; n: number }>(
      `SELECT status, COUNT(*) AS n FROM organizations GROUP BY status`,
    ))
      organizations[row.status] = row.n;
    const oldest = this.sql.exec<{ time: string }>(`SELECT time FROM changes ORDER BY seq LIMIT 1`).toArray()[0];
    return {
      databaseBytes: this.ctx.storage.sql.databaseSize,
      organizations,
      members: count(`SELECT COUNT(*) AS n FROM members`),
      invitations: {
        pending: count(`SELECT COUNT(*) AS n FROM invitations WHERE used_at IS NULL AND expires_at > ?`, Date.now()),
        total: count(`SELECT COUNT(*) AS n FROM invitations`),
      },
      changes: {
        entries: count(`SELECT COUNT(*) AS n FROM changes`),
        oldest: oldest?.time ?? null,
        retentionDays: this.caps().changeLogRetentionDays,
      },
      viewsToTell: count(`SELECT COUNT(*) AS n FROM view_changes`),
    };
  }

  caps(): PlatformCaps {
    const stored = this.sql.exec<{ value: string }>(`SELECT value FROM platform WHERE key = 'caps'`).toArray()[0];
    return platformCapsSchema.parse(stored ? JSON.parse(stored.value) : {});
  }

  setCaps(caps: PlatformCaps, actor: string): PlatformCaps {
    const before = this.caps();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT INTO platform (key, value) VALUES ('caps', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        JSON.stringify(caps),
      );
      this.logChange("(platform)", actor, "platform.caps", before, caps);
    });
    return this.caps();
  }

  async reencryptSecrets(): Promise<{ reencrypted: number; unreadable: number }> {
    const rows = this.sql
      .exec<{ organization_id: string; name: string }>(`SELECT organization_id, name FROM secrets`)
      .toArray();
    let reencrypted = 0;
    let unreadable = 0;
    for (const { organization_id: id, name } of rows) {
      const value = await this.secretValue(id, name as SecretName);
      if (value === undefined) {
        unreadable++;
        continue;
      }
      const sealed = await sealSecret(this.env, id, name, value);
      this.sql.exec(
        `UPDATE secrets SET key_id = ?, iv = ?, ciphertext = ? WHERE organization_id = ? AND name = ?`,
        sealed.keyId,
        sealed.iv,
        sealed.ciphertext,
        id,
        name,
      );
      reencrypted++;
    }
    return { reencrypted, unreadable };
  }
}
