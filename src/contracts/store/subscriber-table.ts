/**
 * MCP sessions that asked to hear about a project's latest verdict. The MCP side adds and removes entries;
 * the snapshot upload path reads them (see events.ts) to notify each session.
 */

/**
 * The most sessions one project records: every change of the project is announced to each of them after its
 * answer, so the number bounds that work (and its platform subrequests). Sessions leave when they end.
 */
export const MAX_SUBSCRIBERS_PER_PROJECT = 1000;

/**
 * The most of a project's places one user's sessions take, so that one member (who may open any number of sessions)
 * cannot leave the rest of the organization without notifications. Rows recorded before users were kept name no one.
 */
export const MAX_SUBSCRIBERS_PER_USER = 100;

/** What recording a subscriber gives: recorded, already recorded, or refused by one of the two bounds. */
export type SubscribeResult = "added" | "held" | "full" | "user-full";

/** Records `userId`'s session ("added", or "held" when it already is one), unless a bound is reached. */
export function addSubscriber(sql: SqlStorage, project: string, sessionId: string, userId: string): SubscribeResult {
  const held = sql
    .exec("SELECT 1 FROM subscribers WHERE project = ? AND session_id = ?", project, sessionId)
    .toArray().length;
  if (held) return "held";
  const count = (where: string, ...values: string[]) =>
    sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM subscribers WHERE ${where}`, ...values).toArray()[0]!.n;
  if (count("project = ?", project) >= MAX_SUBSCRIBERS_PER_PROJECT) return "full";
  if (count("project = ? AND user_id = ?", project, userId) >= MAX_SUBSCRIBERS_PER_USER) return "user-full";
  sql.exec(
    "INSERT INTO subscribers (project, session_id, subscribed_at, user_id) VALUES (?, ?, ?, ?)",
    project,
    sessionId,
    new Date().toISOString(),
    userId,
  );
  return "added";
}

export function removeSubscriber(sql: SqlStorage, project: string, sessionId: string): void {
  sql.exec("DELETE FROM subscribers WHERE project = ? AND session_id = ?", project, sessionId);
}

/** Removes the sessions an announcement found no longer following the project, in one call. */
export function removeSubscribers(sql: SqlStorage, project: string, sessionIds: readonly string[]): void {
  for (const sessionId of sessionIds) removeSubscriber(sql, project, sessionId);
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
