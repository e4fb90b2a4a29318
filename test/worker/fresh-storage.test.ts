/**
 * Test files share a runtime per pool worker (vitest.config.ts), so they stay apart only by the setup file that
 * empties storage before each one. This file checks that it did: the other files of its worker have registered
 * clients, granted tokens, counted quotas and written every kind of Durable Object, and none of it may be left
 * when this file starts. It fails without the setup file whenever it is not the first file of its worker.
 *
 * One thing a shared runtime cannot rule out: a request of the previous file still in flight when that file ended
 * (a client's session it never closed, a request it let go) can open a session object after the reset. Session
 * ids are random, so no other file can reach that session; the MCP namespace is therefore checked for everything
 * but whole sessions, and every other namespace, KV included, for everything. Such a session's audit outbox then
 * drains (1 s later in tests) into its organization's trail: an audit object holding only records timed before this
 * file started (or listing only the day of such records) was written by the previous file's calls, delivered late,
 * and is not a leftover of the reset (the
 * reset empties every namespace in one call, so the other namespaces and KV still catch one that did not happen).
 */
import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { storedRows } from "./stored-rows";

const kvNamespaces = { OAUTH_KV: env.OAUTH_KV, RATE_LIMIT_KV: env.RATE_LIMIT_KV };
const objectNamespaces = {
  CONTRACT_STORE: env.CONTRACT_STORE,
  RATE_LIMITER: env.RATE_LIMITER,
  AUDIT_LOG: env.AUDIT_LOG,
  LISTEN_HUB: env.LISTEN_HUB,
  TOLERANCE_COUNTER: env.TOLERANCE_COUNTER,
  GRANT_SWEEPER: env.GRANT_SWEEPER,
  EXPORTER: env.EXPORTER,
} as unknown as Record<string, DurableObjectNamespace>;

const fileStart = Date.now();

/**
 * An audit object whose only records were timed before this file started (a previous file's late outbox drain): a
 * day's store holding such records, or an organization's own store listing only days whose first record was.
 */
async function onlyLateAuditRecords(namespace: DurableObjectNamespace, id: DurableObjectId): Promise<boolean> {
  return runInDurableObject(namespace.get(id), async (_instance: unknown, state: DurableObjectState) => {
    const tables = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'")
      .toArray();
    if (tables.length === 0) return false;
    const row = state.storage.sql
      .exec<{ n: number; latest: number | null }>("SELECT count(*) AS n, max(time_ms) AS latest FROM audit_events")
      .one();
    const days = state.storage.sql
      .exec<{ n: number; latest: number | null }>(
        "SELECT count(*) AS n, max(first_record_ms) AS latest FROM audit_shards",
      )
      .one();
    const late = (counted: { n: number; latest: number | null }) =>
      counted.n === 0 || (counted.latest !== null && counted.latest < fileStart);
    return row.n + days.n > 0 && late(row) && late(days);
  });
}

/** What a leftover names (the projects and times of a contract store), so a failure says which file left it. */
async function namedIn(namespace: DurableObjectNamespace, id: DurableObjectId): Promise<Record<string, string>> {
  return runInDurableObject(namespace.get(id), async (_instance: unknown, state: DurableObjectState) => {
    // When this file started and the object's alarm: a row created after the start was written after the reset.
    const alarm = await state.storage.getAlarm();
    const named: Record<string, string> = {
      fileStartedAt: new Date(fileStart).toISOString(),
      alarm: alarm === null ? "none" : new Date(alarm).toISOString(),
    };
    const has = (table: string) =>
      state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", table).toArray().length;
    if (!has("projects")) return named;
    const projects = state.storage.sql.exec<{ name: string; created_at: string }>(
      "SELECT name, created_at FROM projects ORDER BY name",
    );
    return {
      ...named,
      projects: projects
        .toArray()
        .map((row) => `${row.name} (${row.created_at})`)
        .join(", "),
    };
  });
}

describe("each test file starts with empty storage", () => {
  it.each(Object.entries(kvNamespaces))("KV namespace %s holds no key", async (_name, namespace) => {
    const listed = await namespace.list();
    expect(listed.keys.map((key) => key.name)).toEqual([]);
  });

  // An object that is still listed holds at most what any new object of its class writes when it starts (agents
  // records its schema version): nothing a test wrote.
  it.each(Object.entries(objectNamespaces))(
    "Durable Object namespace %s holds nothing a test wrote",
    async (name, namespace) => {
      const listed = await listDurableObjectIds(namespace);
      const fresh = await storedRows(namespace, namespace.newUniqueId());
      const leftovers: Array<Record<string, unknown>> = [];
      const check = async (id: DurableObjectId) => {
        const rows = await storedRows(namespace, id);
        if (JSON.stringify(rows) === JSON.stringify(fresh)) return;
        if (name === "AUDIT_LOG" && (await onlyLateAuditRecords(namespace, id))) return;
        leftovers.push({ ...rows, ...(await namedIn(namespace, id)) });
      };
      // Every object the worker's earlier files made is listed and started: a few at a time, not one by one.
      const queue = [...listed];
      const lane = async () => {
        for (let id = queue.pop(); id !== undefined; id = queue.pop()) await check(id);
      };
      await Promise.all(Array.from({ length: 16 }, lane));
      expect(leftovers).toEqual([]);
    },
    // Every object the worker's earlier files made is started here, each running its constructor (a contract store
    // creates its schema), so a file that runs late in its worker checks hundreds of them: more than the suite's
    // default timeout allows on a loaded machine. How long this takes is not what it tests.
    180_000,
  );

  // A late request may also start a session object without making a session (a change announced to a session the
  // reset ended): agents then records its schema versions there, which is the library's bookkeeping, not a test's.
  it("Durable Object namespace MCP_OBJECT holds no session object that is not a whole session of its own", async () => {
    const partial = [];
    for (const id of await listDurableObjectIds(env.MCP_OBJECT)) {
      const rows = await storedRows(env.MCP_OBJECT as unknown as DurableObjectNamespace, id);
      const session = "key initializeRequest" in rows && "key props" in rows && "key arbiter:owner" in rows;
      const written = Object.keys(rows).filter((name) => !/^key cf_agents:\w+_version$/.test(name));
      if (written.length > 0 && !session) partial.push(rows);
    }
    expect(partial).toEqual([]);
  });
});
