// The Durable Objects behind the contract routes, for tests that look inside: the organization's store and a
// project's own store (src/contracts/store/project-homes.ts), and where each keeps its bucket content.
import { env, runInDurableObject } from "cloudflare:test";
import { contentKey, organizationSpace, projectSpace } from "../../../src/contracts/store/bucket";
import { forgetProjectHomes } from "../../../src/contracts/store/client";
import { projectStoreName } from "../../../src/contracts/store/project-homes";
import type { Env as WorkerEnv } from "../../../src/env";

const bindings = env as unknown as WorkerEnv;

/** The organization's own store: CI keys, default projects, its directory of projects, projects from before the split. */
export function organizationStore(organization: string) {
  return bindings.CONTRACT_STORE.get(bindings.CONTRACT_STORE.idFromName(organization));
}

/** A project's own store, where every project created since the split keeps its history. */
export function projectStore(organization: string, project: string) {
  return bindings.CONTRACT_STORE.get(bindings.CONTRACT_STORE.idFromName(projectStoreName(organization, project)));
}

/** The bucket key of content held by a project's own store. */
export function projectContentKey(organization: string, project: string, hash: string): string {
  return contentKey(projectSpace(organization, project), hash);
}

/** The bucket key of content held by the organization's store. */
export function organizationContentKey(organization: string, hash: string): string {
  return contentKey(organizationSpace(organization), hash);
}

type Rows = Record<string, Array<Record<string, SqlStorageValue>>>;

/**
 * Turns a project's own store back into the layout from before the split: every row of the project's store copied
 * into the organization's store (the same tables, ids kept), its bucket content copied into the organization's space,
 * and the project's store and its directory row emptied. What a store written before the split holds.
 */
export async function intoOrganizationStore(organization: string, project: string): Promise<void> {
  const own = projectStore(organization, project);
  const rows = await runInDurableObject(own, (_instance, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
      )
      .toArray()
      .map((row) => row.name);
    const out: Rows = {};
    for (const table of tables) out[table] = state.storage.sql.exec(`SELECT * FROM "${table}"`).toArray();
    return out;
  });
  for (const { hash } of rows.blobs ?? []) {
    const object = await bindings.DOCUMENTS.get(projectContentKey(organization, project, String(hash)));
    if (object)
      await bindings.DOCUMENTS.put(organizationContentKey(organization, String(hash)), await object.arrayBuffer());
  }
  await runInDurableObject(organizationStore(organization), (_instance, state) => {
    for (const [table, tableRows] of Object.entries(rows)) {
      if (table === "project_homes" || table === "retention_runs") continue;
      for (const row of tableRows) {
        const columns = Object.keys(row);
        // One store counted every project's bucket bytes and events before the split.
        const upsert =
          table === "counters"
            ? " ON CONFLICT (name) DO UPDATE SET value = CASE WHEN name = 'bucket_bytes' THEN value + excluded.value ELSE MAX(value, excluded.value) END"
            : "";
        state.storage.sql.exec(
          `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})${upsert}`,
          ...columns.map((c) => row[c] ?? null),
        );
      }
    }
    state.storage.sql.exec("DELETE FROM project_homes WHERE name = ?", project);
  });
  await runInDurableObject(own, async (_instance, state) => {
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
  forgetProjectHomes();
}
