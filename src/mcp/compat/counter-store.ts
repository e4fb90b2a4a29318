/**
 * ToleranceCounter: one SQLite-backed Durable Object per organization that counts the deviations the
 * compatibility front tolerated, per rule, client and request kind. The front records each tolerated request
 * after answering it (ctx.waitUntil); the first record of a (rule, client, kind) says so, which is when the
 * front logs it (once per client and request kind, not once per request). GET /api/v1/mcp/tolerances reads its
 * report (the tolerance table and the counts).
 * Bounded: at most MAX_ROWS distinct rows; later new combinations are counted under the client "(other)".
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env";
import type { ToleranceCount, ToleranceCounterRpc, ToleranceReport } from "./counter-rpc";
import { TOLERANCES } from "./tolerances";

export const MAX_ROWS = 500;
export const OTHER_CLIENT = "(other)";

export class ToleranceCounter extends DurableObject<Env> implements ToleranceCounterRpc {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS tolerated (rule TEXT NOT NULL, client TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, PRIMARY KEY (rule, client, kind))",
    );
  }

  /** Counts one tolerated request; true when this (rule, client, kind) was never seen before. */
  async record(rule: string, client: string, kind: string, at: string): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    const known = sql.exec("SELECT 1 FROM tolerated WHERE rule = ? AND client = ? AND kind = ?", rule, client, kind).toArray().length > 0;
    const full = !known && (sql.exec("SELECT COUNT(*) AS n FROM tolerated").one().n as number) >= MAX_ROWS;
    const who = full ? OTHER_CLIENT : client;
    sql.exec(
      "INSERT INTO tolerated (rule, client, kind, count, first_seen, last_seen) VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (rule, client, kind) DO UPDATE SET count = count + 1, last_seen = excluded.last_seen",
      rule,
      who,
      kind,
      at,
      at,
    );
    return !known && !full;
  }

  async report(): Promise<ToleranceReport> {
    return { tolerances: TOLERANCES, counts: this.counts() };
  }

  private counts(): ToleranceCount[] {
    return this.ctx.storage.sql
      .exec("SELECT rule, client, kind, count, first_seen, last_seen FROM tolerated ORDER BY rule, count DESC, client, kind")
      .toArray()
      .map((row) => ({ rule: String(row.rule), client: String(row.client), kind: String(row.kind), count: Number(row.count), firstSeen: String(row.first_seen), lastSeen: String(row.last_seen) }));
  }
}
