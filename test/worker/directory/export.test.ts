/**
 * The operator's export of an organization (GET /operator/v1/organizations/{id}/export) reads its stores a page of
 * rows at a time (src/contracts/services/archive.ts), and counts as the export that allows a deletion only once it
 * was downloaded to its end.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { archiveStart, nextArchivePiece } from "../../../src/contracts/services/archive";
import { projectStoreName } from "../../../src/contracts/store/project-homes";
import type { Env } from "../../../src/env";
import { sha256Digest } from "../../../src/lib/sha256";
import { callJson } from "../contracts-api/api-helpers";
import { ordersContract, text, violatingSnapshot } from "../contracts-api/fixtures";
import { restPrincipal } from "../harness";
import { auditRecord, BASE } from "../helpers";
import { SELF } from "../self";
import { OPERATOR_KEY, operator } from "./helpers";

const workerEnv = env as unknown as Env;

/** The `contracts` value of the organization's archive, read piece after piece as the export reads it. */
async function archiveText(organizationId: string, pageBytes?: number, from: Env = workerEnv): Promise<string> {
  let text = "";
  for (let place = archiveStart(); ; ) {
    const piece = await nextArchivePiece(from, organizationId, place, pageBytes);
    if (!piece) return text;
    text += piece.text;
    place = piece.place;
  }
}

/** Row counts of every table of a store, read in the store itself. */
async function rowCounts(name: string): Promise<Record<string, number>> {
  const stub = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(name));
  return runInDurableObject(stub, (_instance, state) => {
    const counts: Record<string, number> = {};
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
      )
      .toArray();
    for (const { name: table } of tables)
      counts[table] = state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`).one().n;
    return counts;
  });
}

const download = (id: string) =>
  SELF.fetch(`${BASE}/operator/v1/organizations/${id}/export`, {
    headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
  });

describe("the export archive", () => {
  it("read a row per page is the archive read in large pages, and holds every row of every store", async () => {
    const writer = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
    for (const project of ["ledger", "payments"]) {
      const created = await callJson(writer, "POST", `/projects/${project}/contracts`, text(ordersContract()));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      for (const commit of ["c1", "c2", "c3"])
        expect(
          (await callJson(writer, "POST", `/projects/${project}/snapshots?commit=${commit}`, text(violatingSnapshot())))
            .status,
        ).toBe(201);
    }

    const rowByRow = JSON.parse(await archiveText("acme", 1));
    expect(rowByRow).toEqual(JSON.parse(await archiveText("acme")));
    for (const project of ["ledger", "payments"]) {
      const tables = rowByRow.project_stores[project] as Record<string, unknown[]>;
      const counts = await rowCounts(projectStoreName("acme", project));
      expect(Object.keys(tables).sort()).toEqual(Object.keys(counts).sort());
      for (const [table, count] of Object.entries(counts)) expect(tables[table], table).toHaveLength(count);
      expect(counts.snapshots).toBe(3);
    }
  });

  it("a page holds at least one row, stops near its size, and goes on after the last rowid it gave", async () => {
    const writer = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
    expect((await callJson(writer, "POST", "/projects/rows/contracts", text(ordersContract()))).status).toBe(201);
    for (const commit of ["c1", "c2"])
      await callJson(writer, "POST", `/projects/rows/snapshots?commit=${commit}`, text(violatingSnapshot()));
    const store = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(projectStoreName("acme", "rows")));
    const first = await store.exportRows("snapshots", null, 1);
    expect(first).toMatchObject({ rows: [expect.any(Object)], more: true });
    const second = await store.exportRows("snapshots", first.lastRowid, 1);
    expect(second).toMatchObject({ rows: [expect.any(Object)], more: false });
    expect(second.rows[0]?.commit_sha).not.toBe(first.rows[0]?.commit_sha);
    expect((await store.exportRows("snapshots", null, 10 * 1024 * 1024)).rows).toHaveLength(2);
    expect(await store.exportRows('snapshots" --', null, 1)).toEqual({ rows: [], lastRowid: null, more: false });
    // The local runtime's own table (wrangler dev adds __miniflare_do_name to each object) is not the store's data.
    await runInDurableObject(store, (_instance, state) => {
      state.storage.sql.exec("CREATE TABLE IF NOT EXISTS __miniflare_do_name (name TEXT)");
    });
    expect(await store.exportTableNames()).not.toContain("__miniflare_do_name");
    expect(await store.exportTableNames()).toContain("snapshots");
  });
});

describe("the export's documents", () => {
  it("are read by each store, a page per call: the Worker makes no bucket read of its own", async () => {
    const writer = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
    // Documents over 64 KiB are kept in the bucket (src/contracts/store/bucket.ts).
    const large = (n: number) => text(ordersContract({ "x-padding": `${n}`.padEnd(70_000, "~") }));
    expect((await callJson(writer, "POST", "/projects/bulk-docs/contracts", large(0))).status).toBe(201);
    for (let n = 1; n <= 6; n++)
      expect((await callJson(writer, "POST", `/projects/bulk-docs/snapshots?commit=c${n}`, large(n))).status).toBe(201);
    let bucketReads = 0;
    const counted: Env = {
      ...workerEnv,
      DOCUMENTS: new Proxy(env.DOCUMENTS, {
        get: (target, property) => {
          const value = Reflect.get(target, property).bind(target);
          return (...args: unknown[]) => {
            bucketReads++;
            return value(...args);
          };
        },
      }),
    };
    const archive = await archiveText("acme", undefined, counted);
    const content = JSON.parse(archive).bucket_content as Array<{ project?: string; hash: string; base64: string }>;
    expect(content.filter((entry) => entry.project === "bulk-docs").length).toBeGreaterThanOrEqual(7);
    for (const { hash, base64 } of content)
      expect(await sha256Digest(new Uint8Array(Buffer.from(base64, "base64")))).toBe(hash);
    expect(bucketReads).toBe(0);
  });
});

describe("the export that allows a deletion", () => {
  it("is one downloaded to its end: a download broken off leaves the deletion refused", async () => {
    const id = "halfway";
    expect((await operator("POST", "/organizations", { id, name: "Halfway" })).status).toBe(201);
    const broken = await download(id);
    expect(broken.status).toBe(200);
    const reader = (broken.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    expect((await operator("DELETE", `/organizations/${id}`)).body.code).toBe("export_required");

    const whole = await download(id);
    expect(JSON.parse(await whole.text())).toMatchObject({ format: "arbiter-organization-export/1", contracts: {} });
    expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);
  });
});

describe("a store larger than one answer", () => {
  it("exports whole: 36 MiB of rows, more than a Durable Object may answer in one call", async () => {
    const id = "bulky";
    expect((await operator("POST", "/organizations", { id, name: "Bulky" })).status).toBe(201);
    // Pieces of 1 MiB, as a store written before documents went to R2 holds them (docs/storage.md).
    const store = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(id));
    const piece = new Uint8Array(1024 * 1024).map((_, i) => (i * 31) % 251);
    await runInDurableObject(store, (_instance, state) => {
      state.storage.sql.exec(
        "CREATE TABLE IF NOT EXISTS blob_chunks (hash TEXT NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL)",
      );
      for (let idx = 0; idx < 36; idx++)
        state.storage.sql.exec(
          "INSERT INTO blob_chunks (hash, idx, data) VALUES (?, ?, ?)",
          "sha256:old",
          idx,
          piece.buffer,
        );
    });
    const response = await download(id);
    expect(response.status).toBe(200);
    const archive = JSON.parse(await response.text());
    const chunks = archive.contracts.blob_chunks as Array<{ idx: number; data: { base64: string } }>;
    expect(chunks.map((chunk) => chunk.idx)).toEqual(Array.from({ length: 36 }, (_, i) => i));
    expect(Buffer.from(chunks[35]?.data.base64 ?? "", "base64").equals(Buffer.from(piece))).toBe(true);
    expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);
  }, 60_000);
});

describe("an export older than a day", () => {
  it("no longer allows a deletion: the refusal names when it was taken, and a new one does", async () => {
    const id = "stale";
    expect((await operator("POST", "/organizations", { id, name: "Stale" })).status).toBe(201);
    expect((await (await download(id)).text()).length).toBeGreaterThan(0);
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    await runInDurableObject(directory, (_instance, state) => {
      state.storage.sql.exec("UPDATE organizations SET exported_at = ? WHERE id = ?", twoDaysAgo, id);
    });
    const refused = await operator("DELETE", `/organizations/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("export_required");
    expect(refused.body.detail).toContain(`its last export, at ${twoDaysAgo}, is more than 24 hours old`);
    await (await download(id)).text();
    expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);
  });
});

describe("an organization of many members and changes", () => {
  it("exports every member, its whole change log and its whole audit trail, a page at a time", async () => {
    const id = "crowded";
    expect((await operator("POST", "/organizations", { id, name: "Crowded" })).status).toBe(201);
    const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    // More than a page of each (1,000), written as the directory writes them.
    await runInDurableObject(directory, (_instance, state) => {
      const now = new Date().toISOString();
      for (let n = 0; n < 2_345; n++)
        state.storage.sql.exec(
          "INSERT INTO members (organization_id, email, role, status, subject, updated_at) VALUES (?, ?, 'member', 'active', NULL, ?)",
          id,
          `m${String(n).padStart(4, "0")}@crowded.example`,
          now,
        );
      for (let n = 0; n < 1_500; n++)
        state.storage.sql.exec(
          "INSERT INTO changes (time, organization_id, actor, action, before, after) VALUES (?, ?, 'operator', 'test.change', NULL, ?)",
          now,
          id,
          JSON.stringify({ n }),
        );
    });
    // More than a page (500) of its audit trail, stored as the outbox delivers records.
    const audit = env.AUDIT_LOG.get(env.AUDIT_LOG.idFromName(id));
    const start = Date.now() - 60_000;
    const results = await audit.appendBatch(
      Array.from({ length: 1_234 }, (_, n) => ({
        deliveryId: `export-${n}`,
        record: auditRecord(id, { target: "exported.tool", time: new Date(start + n).toISOString(), durationMs: n }),
      })),
    );
    expect(results.every((result) => result.stored)).toBe(true);
    const archive = JSON.parse(await (await download(id)).text());
    const exported = (archive.auditEvents as Array<{ target: string; durationMs: number }>).filter(
      (event) => event.target === "exported.tool",
    );
    // Every record, newest first.
    expect(exported.map((event) => event.durationMs)).toEqual(Array.from({ length: 1_234 }, (_, n) => 1_233 - n));
    const members = archive.members as Array<{ email: string }>;
    expect(members).toHaveLength(2_345);
    expect(new Set(members.map((member) => member.email)).size).toBe(2_345);
    expect(members.map((member) => member.email)).toEqual(members.map((member) => member.email).sort());
    const changes = archive.changes as Array<{ seq: number; action: string; after: { n: number } | null }>;
    // Every change, newest first: the 1,500 written here and the organization's creation before them.
    expect(changes).toHaveLength(1_501);
    expect(changes.map((change) => change.seq)).toEqual(changes.map((change) => change.seq).sort((a, b) => b - a));
    expect(changes.filter((change) => change.action === "test.change").map((change) => change.after?.n)).toEqual(
      Array.from({ length: 1_500 }, (_, n) => 1_499 - n),
    );
  }, 60_000);
});
