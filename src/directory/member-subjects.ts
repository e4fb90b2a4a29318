/**
 * Every subject a member has signed in with, per organization and address. One address can reach an organization
 * through more than one provider (the platform's and the organization's own, or a provider that issued a new
 * subject), and each subject holds its own grants: removing or demoting a member acts on all of them, and a subject
 * once removed stays refused whatever address it comes back with.
 */

const TABLE = `CREATE TABLE member_subjects (
    organization_id TEXT NOT NULL,
    email TEXT NOT NULL,
    subject TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    PRIMARY KEY (organization_id, email, subject)
  )`;
const BY_SUBJECT = `CREATE INDEX IF NOT EXISTS member_subjects_by_subject ON member_subjects (organization_id, subject)`;

/**
 * Creates the table; on the first start of a directory from before it, fills it with the one subject each member
 * row kept (`members.subject`), so members removed after the upgrade lose the grants they had before it.
 */
export function upgradeMemberSubjects(sql: SqlStorage): void {
  const exists = sql
    .exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'member_subjects'`)
    .toArray().length;
  if (!exists) {
    sql.exec(TABLE);
    sql.exec(
      `INSERT OR IGNORE INTO member_subjects (organization_id, email, subject, first_seen)
       SELECT organization_id, email, subject, updated_at FROM members WHERE subject IS NOT NULL`,
    );
  }
  sql.exec(BY_SUBJECT);
}

export function noteSubject(sql: SqlStorage, organizationId: string, email: string, subject: string): void {
  sql.exec(
    `INSERT OR IGNORE INTO member_subjects (organization_id, email, subject, first_seen) VALUES (?, ?, ?, ?)`,
    organizationId,
    email.toLowerCase(),
    subject,
    new Date().toISOString(),
  );
}

/** The subjects an address signed in with in this organization, oldest first. */
export function subjectsOf(sql: SqlStorage, organizationId: string, email: string): string[] {
  return sql
    .exec<{ subject: string }>(
      `SELECT subject FROM member_subjects WHERE organization_id = ? AND email = ? ORDER BY first_seen, subject`,
      organizationId,
      email.toLowerCase(),
    )
    .toArray()
    .map((row) => row.subject);
}

/** Whether this subject signed in as a member the organization has since removed. */
export function isRemovedSubject(sql: SqlStorage, organizationId: string, subject: string): boolean {
  return (
    sql
      .exec(
        `SELECT 1 FROM member_subjects s JOIN members m ON m.organization_id = s.organization_id AND m.email = s.email
         WHERE s.organization_id = ? AND s.subject = ? AND m.status = 'removed' LIMIT 1`,
        organizationId,
        subject,
      )
      .toArray().length > 0
  );
}

/**
 * The roles of the organization's active members, by each subject they signed in with (only `subjects`' when given).
 * A subject that signed in only as members since removed maps to no role (`[]`): it may keep no grant. A subject
 * not listed at all never signed in as a member of the list (its holder is held to the default role).
 */
export function rolesBySubject(
  sql: SqlStorage,
  organizationId: string,
  subjects: readonly string[] | null = null,
): Record<string, string[]> {
  const roles: Record<string, string[]> = {};
  const rows = sql.exec<{ subject: string; role: string; status: string }>(
    `SELECT s.subject, m.role, m.status FROM member_subjects s
       JOIN members m ON m.organization_id = s.organization_id AND m.email = s.email
     WHERE s.organization_id = ? AND m.status IN ('active', 'removed')
       AND (? IS NULL OR s.subject IN (SELECT value FROM json_each(?)))`,
    organizationId,
    subjects === null ? null : 1,
    JSON.stringify(subjects ?? []),
  );
  for (const { subject, role, status } of rows) {
    const held = (roles[subject] ??= []);
    if (status === "active") held.push(role);
  }
  return roles;
}
