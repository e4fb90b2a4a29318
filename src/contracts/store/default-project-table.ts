/**
 * Each user's default project within the organization: what spec tools use when no `project` is given and
 * what spec://active/contract shows. Kept per user (not per MCP session) because 2026-07-28 clients have no
 * session; spec_project_select sets it from either protocol era.
 */
export function getDefaultProject(sql: SqlStorage, userId: string): string | null {
  const row = sql
    .exec<{ project: string }>("SELECT project FROM default_projects WHERE user_id = ?", userId)
    .toArray()[0];
  return row ? row.project : null;
}

export function setDefaultProject(sql: SqlStorage, userId: string, project: string): void {
  sql.exec(
    "INSERT INTO default_projects (user_id, project, set_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET project = excluded.project, set_at = excluded.set_at",
    userId,
    project,
    new Date().toISOString(),
  );
}
