// What a Durable Object holds: the rows of each of its own SQL tables and each key of its key-value storage, named
// (the runtime's `_cf_` tables and SQLite's own left out). Two objects holding the same are alike to a reader.
import { runInDurableObject } from "cloudflare:test";

export async function storedRows(
  namespace: DurableObjectNamespace,
  id: DurableObjectId,
): Promise<Record<string, number>> {
  return runInDurableObject(namespace.get(id), async (_instance: unknown, state: DurableObjectState) => {
    const counts: Record<string, number> = {};
    const tables = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray();
    for (const { name } of tables) {
      if (name.startsWith("_cf_") || name === "sqlite_sequence") continue;
      const [row] = state.storage.sql
        .exec<{ n: number }>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`)
        .toArray();
      if (row!.n > 0) counts[`table ${name}`] = row!.n;
    }
    const keys = await state.storage.list();
    for (const key of keys.keys()) counts[`key ${key}`] = 1;
    return counts;
  });
}
