/**
 * The background export (POST /operator/v1/organizations/{id}/exports): the archive written into the bucket a batch
 * per alarm invocation (src/organizations/export-job.ts), then downloaded with one bucket read. It is the streamed
 * export's archive, whole, across batches and parts; a batch that fails is run again from the state before it; the
 * download to its end allows a deletion; an archive expires, and goes with the organization's data.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import {
  archiveKey,
  type ExportWork,
  MAX_FAILURES,
  PART_BYTES,
  partBytesFor,
} from "../../../src/organizations/export-job";
import type { OrganizationExporter } from "../../../src/organizations/exporter";
import { callJson } from "../contracts-api/api-helpers";
import { ordersContract, text, violatingSnapshot } from "../contracts-api/fixtures";
import { restPrincipal } from "../harness";
import { BASE } from "../helpers";
import { SELF } from "../self";
import { OPERATOR_KEY, operator } from "./helpers";

const workerEnv = env as unknown as Env;
const exporter = (id: string) => workerEnv.EXPORTER.get(workerEnv.EXPORTER.idFromName(id));

const get = (path: string) =>
  SELF.fetch(`${BASE}/operator/v1${path}`, { headers: { Authorization: `Bearer ${OPERATOR_KEY}` } });

/** Runs the exporter's alarms until its job is no longer running; answers the job and the carries seen between. */
async function runToEnd(id: string) {
  const carries = new Set<string>();
  for (let alarms = 0; alarms < 50; alarms++) {
    const job = await exporter(id).job();
    if (job?.status !== "running") return { job, carries };
    const listed = await workerEnv.DOCUMENTS.list({ prefix: `exports/${id}/` });
    for (const object of listed.objects) if (object.key.includes(".carry-")) carries.add(object.key);
    await runDurableObjectAlarm(exporter(id));
  }
  throw new Error("the export did not finish in 50 alarms");
}

/** What two archives of one moment share: all but when they were taken (which the download itself changes). */
function timeless(archive: string) {
  const { format, organization, members, contracts } = JSON.parse(archive);
  const { exportedAt: _exported, ...settings } = organization;
  return { format, organization: settings, members, contracts };
}

/** Rows of 1 MiB written into the organization's store, as a store written before documents went to R2 holds them. */
async function bulkRows(id: string, count: number) {
  const store = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(id));
  const piece = new Uint8Array(1024 * 1024).map((_, i) => (i * 31) % 251);
  await runInDurableObject(store, (_instance, state) => {
    state.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS blob_chunks (hash TEXT NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL)",
    );
    for (let idx = 0; idx < count; idx++)
      state.storage.sql.exec(
        "INSERT INTO blob_chunks (hash, idx, data) VALUES (?, ?, ?)",
        "sha256:old",
        idx,
        piece.buffer,
      );
  });
}

describe("the background export", () => {
  // A finished job keeps its state (its archive can be downloaded for a week), and an idle object may be evicted
  // before the next file's storage reset reaches it: each organization's exporter is emptied here instead.
  afterAll(async () => {
    for (const id of ["acme", "bg-delete", "bg-broken", "bg-failing", "bg-expiry"]) await exporter(id).purge();
  });

  it("writes the streamed export's archive into the bucket across batches and parts, and its download allows a deletion", async () => {
    const writer = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
    // Documents over 64 KiB are kept in the bucket (src/contracts/store/bucket.ts); "acme" is the harness's organization.
    const large = (n: number) => text(ordersContract({ "x-padding": `${n}`.padEnd(70_000, "~") }));
    expect((await callJson(writer, "POST", "/projects/export-job/contracts", large(0))).status).toBe(201);
    for (const commit of ["c1", "c2"])
      expect(
        (await callJson(writer, "POST", `/projects/export-job/snapshots?commit=${commit}`, text(violatingSnapshot())))
          .status,
      ).toBe(201);
    expect((await callJson(writer, "POST", "/projects/export-job/snapshots?commit=c3", large(3))).status).toBe(201);
    // More text than one batch reads (24 MiB), so the archive takes several batches and several 8 MiB parts.
    await bulkRows("acme", 20);

    const started = await operator("POST", "/organizations/acme/exports");
    expect(started.status).toBe(202);
    expect(started.body.export).toMatchObject({ status: "running", bytes: 0, completedAt: null });
    const exportId = started.body.export.id as string;
    // Asked again while it runs: the same job, nothing started twice.
    expect((await operator("POST", "/organizations/acme/exports")).body.export.id).toBe(exportId);

    const { job, carries } = await runToEnd("acme");
    expect(job).toMatchObject({ id: exportId, status: "complete", error: null });
    expect(job?.batches).toBeGreaterThanOrEqual(2);
    expect(job?.bytes).toBeGreaterThan(3 * PART_BYTES);
    // The text past the last whole part was carried between batches under a new name each time, and none is left.
    expect(carries.size).toBeGreaterThanOrEqual(1);
    const left = await workerEnv.DOCUMENTS.list({ prefix: `exports/acme/` });
    expect(left.objects.map((object) => object.key)).toEqual([archiveKey("acme", exportId)]);
    expect((await operator("GET", `/organizations/acme/exports/${exportId}`)).body.export).toEqual(job);

    const downloaded = await get(`/organizations/acme/exports/${exportId}/archive`);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-length")).toBe(String(job?.bytes));
    const archive = await downloaded.text();
    expect(archive.length).toBe(job?.bytes);
    const streamed = await (await get("/organizations/acme/export")).text();
    expect(timeless(archive)).toEqual(timeless(streamed));
    const contracts = JSON.parse(archive).contracts;
    expect(contracts.blob_chunks).toHaveLength(20);
    expect(contracts.project_stores["export-job"].snapshots).toHaveLength(3);
    expect(
      contracts.bucket_content.filter((entry: { project?: string }) => entry.project === "export-job").length,
    ).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("counts as the export a deletion needs only once its archive is downloaded to its end", async () => {
    const id = "bg-delete";
    expect((await operator("POST", "/organizations", { id, name: "Background" })).status).toBe(201);
    const exportId = (await operator("POST", `/organizations/${id}/exports`)).body.export.id as string;
    const early = await operator("GET", `/organizations/${id}/exports/${exportId}/archive`);
    if (early.status !== 200) {
      // Not written yet: refused with what to do, until its status is complete.
      expect(early.status).toBe(409);
      expect(early.body.code).toBe("export_not_ready");
      expect(early.body.detail).toContain(`/exports/${exportId}`);
    }
    expect((await runToEnd(id)).job?.status).toBe("complete");

    const broken = await get(`/organizations/${id}/exports/${exportId}/archive`);
    const reader = (broken.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    // A small archive may arrive in one read: the deletion is refused only when the read above was not its end.
    const whole = await get(`/organizations/${id}/exports/${exportId}/archive`);
    expect(JSON.parse(await whole.text())).toMatchObject({ format: "arbiter-organization-export/1", contracts: {} });
    expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);

    const unknown = await operator("GET", `/organizations/${id}/exports/00000000-0000-0000-0000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("unknown_export");
    expect(unknown.body.detail).toContain(`its latest is "${exportId}"`);
  });

  it("a broken-off download leaves the deletion refused", async () => {
    const id = "bg-broken";
    expect((await operator("POST", "/organizations", { id, name: "Broken" })).status).toBe(201);
    await bulkRows(id, 3);
    const exportId = (await operator("POST", `/organizations/${id}/exports`)).body.export.id as string;
    expect((await runToEnd(id)).job?.status).toBe("complete");
    const broken = await get(`/organizations/${id}/exports/${exportId}/archive`);
    const reader = (broken.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    expect((await operator("DELETE", `/organizations/${id}`)).body.code).toBe("export_required");
  });

  it("runs a failed batch again a minute later from the state before it, and fails after five in a row", async () => {
    const id = "bg-failing";
    expect((await operator("POST", "/organizations", { id, name: "Failing" })).status).toBe(201);
    const stub = exporter(id);
    // Started in the object itself, its first alarm taken off before it can run (no await between the two lets
    // another event in), then its upload aborted behind its back (a bucket that lost it): every batch fails.
    const work = await runInDurableObject(stub, async (instance: OrganizationExporter, state) => {
      await instance.start({ id });
      await state.storage.deleteAlarm();
      const stored = (await state.storage.get<ExportWork>("export")) as ExportWork;
      await state.storage.setAlarm(Date.now() + 60_000);
      return stored;
    });
    const exportId = work.job.id;
    expect(work.job.status).toBe("running");
    await workerEnv.DOCUMENTS.resumeMultipartUpload(work.key, work.uploadId).abort();
    // A carry a batch wrote before it died, which no stored state names: it goes with the job too.
    await workerEnv.DOCUMENTS.put(`${work.key}.carry-7`, "orphaned text");
    for (let failure = 1; failure <= MAX_FAILURES; failure++) {
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      const job = await stub.job();
      expect(job?.error).toEqual(expect.any(String));
      expect(job?.bytes).toBe(0);
      expect(job?.status).toBe(failure < MAX_FAILURES ? "running" : "failed");
      const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
      if (failure < MAX_FAILURES) expect(alarm).toBeGreaterThan(Date.now() + 50_000);
      else expect(alarm).toBeNull();
    }
    const refused = await operator("GET", `/organizations/${id}/exports/${exportId}/archive`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("is failed");
    expect((await workerEnv.DOCUMENTS.list({ prefix: `exports/${id}/` })).objects).toEqual([]);
    // A new export starts over and finishes.
    expect((await operator("POST", `/organizations/${id}/exports`)).body.export.id).not.toBe(exportId);
    expect((await runToEnd(id)).job?.status).toBe("complete");
  });

  it("deletes a complete archive once it expires, and with the organization's data", async () => {
    const id = "bg-expiry";
    expect((await operator("POST", "/organizations", { id, name: "Expiry" })).status).toBe(201);
    const stub = exporter(id);
    const first = (await operator("POST", `/organizations/${id}/exports`)).body.export.id as string;
    const done = (await runToEnd(id)).job;
    expect(Date.parse(done?.expiresAt ?? "") - Date.parse(done?.completedAt ?? "")).toBe(7 * 86_400_000);
    await runInDurableObject(stub, async (_instance: OrganizationExporter, state) => {
      const stored = (await state.storage.get<ExportWork>("export")) as ExportWork;
      await state.storage.put("export", { ...stored, job: { ...stored.job, expiresAt: new Date(0).toISOString() } });
      // The completing batch set the alarm for the expiry; the test runs it now (runToEnd's own alarm runs may race
      // the runtime's, and take that alarm off before its time).
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await stub.job())?.status).toBe("expired");
    expect(await workerEnv.DOCUMENTS.head(archiveKey(id, first))).toBeNull();
    expect((await operator("GET", `/organizations/${id}/exports/${first}/archive`)).body.detail).toContain(
      "is expired",
    );

    const second = (await operator("POST", `/organizations/${id}/exports`)).body.export.id as string;
    await runToEnd(id);
    expect(await workerEnv.DOCUMENTS.head(archiveKey(id, second))).not.toBeNull();
    await stub.purge();
    expect(await stub.job()).toBeNull();
    expect(await workerEnv.DOCUMENTS.head(archiveKey(id, second))).toBeNull();
  });

  it("sizes its parts for the organization, so that a large one stays within R2's 10,000 parts", () => {
    const MIB = 1024 * 1024;
    expect(partBytesFor(0)).toBe(PART_BYTES);
    expect(partBytesFor(10e9)).toBe(8 * MIB);
    // 100 GB stored: about 133 GB of archive, in 8,000 parts of 16 MiB (it would take 15,900 parts of 8 MiB).
    expect(partBytesFor(100e9)).toBe(16 * MIB);
    expect(Math.ceil((100e9 * 4) / 3 / partBytesFor(100e9))).toBeLessThanOrEqual(8_000);
    expect(partBytesFor(5e12)).toBe(32 * MIB);
  });
});
