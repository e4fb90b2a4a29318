/**
 * MCP sessions that asked to hear about a project's latest verdict. The MCP side adds and removes entries;
 * the snapshot upload path reads them (see events.ts) to notify each session.
 */
export function addSubscriber(sql: SqlStorage, project: string, sessionId: string): void {
  sql.exec(
    "INSERT OR IGNORE INTO subscribers (project, session_id, subscribed_at) VALUES (?, ?, ?)",
    project,
    sessionId,
    new Date().toISOString(),
  );
}

export function removeSubscriber(sql: SqlStorage, project: string, sessionId: string): void {
  sql.exec("DELETE FROM subscribers WHERE project = ? AND session_id = ?", project, sessionId);
}

/** Forgets every subscription of an ended session; the number of rows removed. */
export function removeSession(sql: SqlStorage, sessionId: string): number {
  return sql.exec("DELETE FROM subscribers WHERE session_id = ?", sessionId).rowsWritten;
}

export function listSubscribers(sql: SqlStorage, project: string): string[] {
  return sql
    .exec<{ session_id: string }>(
      "SELECT session_id FROM subscribers WHERE project = ? ORDER BY subscribed_at",
      project,
    )
    .toArray()
    .map((row) => row.session_id);
}
