/**
 * ToleranceCounter: one SQLite-backed Durable Object per organization that counts the deviations the
 * compatibility front tolerated, per rule, client and request kind. The front records each tolerated request
 * after answering it (ctx.waitUntil); the first record of a (rule, client, kind) says so, which is when the
 * front logs it (once per client and request kind, not once per request). GET /api/v1/mcp/tolerances reads its
 * report (the tolerance table and the counts).
 * Bounded, and fair to the organization's other clients: at most MAX_ROWS named rows, of which one OAuth client
 * opens at most MAX_ROWS_PER_CLIENT (client names and request kinds are the caller's words, which one token can
 * vary at will); a new combination beyond either cap is counted in its rule's one overflow row, client "(other)"
 * and kind "other". The table so holds at most MAX_ROWS plus one row per tolerance.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env";
import type { ToleranceCount, ToleranceCounterRpc, ToleranceReport } from "./counter-rpc";
import { TOLERANCES } from "./tolerances";

export const MAX_ROWS = 500;
export const MAX_ROWS_PER_CLIENT = 20;
export const OTHER_CLIENT = "(other)";
export const OTHER_KIND = "other";

export class ToleranceCounter extends DurableObject<Env> implements ToleranceCounterRpc {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(
      "CREATE TABLE IF NOT EXISTS tolerated (rule TEXT NOT NULL, client TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, PRIMARY KEY (rule, client, kind))",
    );
    // Who opened each row (added later: rows of an older table have none and count for no client's cap).
    const columns = sql
      .exec("PRAGMA table_info(tolerated)")
      .toArray()
      .map((column) => String(column.name));
    if (!columns.includes("opened_by")) sql.exec("ALTER TABLE tolerated ADD COLUMN opened_by TEXT NOT NULL DEFAULT ''");
    sql.exec("CREATE INDEX IF NOT EXISTS tolerated_opened_by ON tolerated (opened_by)");
  }

  async purgeOrganization(_organizationId: string): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** Counts one tolerated request; true when this (rule, client, kind) was never seen before and got its own row. */
  async record(rule: string, client: string, kind: string, at: string, oauthClientId = ""): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    const known =
      sql.exec("SELECT 1 FROM tolerated WHERE rule = ? AND client = ? AND kind = ?", rule, client, kind).toArray()
        .length > 0;
    const overflow =
      !known &&
      (client === OTHER_CLIENT ||
        (sql.exec("SELECT COUNT(*) AS n FROM tolerated WHERE client <> ?", OTHER_CLIENT).one().n as number) >=
          MAX_ROWS ||
        (sql
          .exec("SELECT COUNT(*) AS n FROM tolerated WHERE opened_by = ? AND client <> ?", oauthClientId, OTHER_CLIENT)
          .one().n as number) >= MAX_ROWS_PER_CLIENT);
    sql.exec(
      "INSERT INTO tolerated (rule, client, kind, count, first_seen, last_seen, opened_by) VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT (rule, client, kind) DO UPDATE SET count = count + 1, last_seen = excluded.last_seen",
      rule,
      overflow ? OTHER_CLIENT : client,
      overflow ? OTHER_KIND : kind,
      at,
      at,
      overflow ? "" : oauthClientId,
    );
    return !known && !overflow;
  }

  async report(): Promise<ToleranceReport> {
    return { tolerances: TOLERANCES, counts: this.counts() };
  }

  private counts(): ToleranceCount[] {
    return this.ctx.storage.sql
      .exec(
        "SELECT rule, client, kind, count, first_seen, last_seen FROM tolerated ORDER BY rule, count DESC, client, kind",
      )
      .toArray()
      .map((row) => ({
        rule: String(row.rule),
        client: String(row.client),
        kind: String(row.kind),
        count: Number(row.count),
        firstSeen: String(row.first_seen),
        lastSeen: String(row.last_seen),
      }));
  }
}
