// Upgrade in place (docs/storage.md "Upgrading a store from before the bucket"): a store of the layout before
// documents went to R2 (every content in `blob_chunks` pieces of 1 MiB, a `blobs` table without `stored_in`) keeps
// every contract, snapshot, verdict, CI key and download, byte for byte, once the new code starts on it, and new
// uploads compare with its old contents. The old layout is made here from a store written by this code: its bucket
// content is moved back into pieces, the bucket objects deleted and the column dropped, which is what a store written
// before the bucket holds; then the object restarts, as an upgraded deployment's would.
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import { type Bucket, contentKey, organizationSpace } from "../../../src/contracts/store/bucket";
import { intoOrganizationStore, organizationContentKey, organizationStore, projectStore } from "./stores";
import { CHUNK_BYTES } from "../../../src/contracts/store/schema";
import type { Env as WorkerEnv } from "../../../src/env";
import { sha256Digest } from "../../../src/lib/sha256";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson, createKey } from "./api-helpers";
import { OPERATOR_KEY } from "../directory/helpers";
import { BASE } from "../helpers";

/** Every content hash the bucket holds in a store's space. */
async function listBucketContent(bucket: Bucket, space: string): Promise<string[]> {
  const prefix = contentKey(space, `sha256:${"0".repeat(64)}`).slice(0, -64);
  const hashes: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.DOCUMENTS.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) hashes.push(`sha256:${object.key.slice(prefix.length)}`);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return hashes;
}
import { ordersContract, text, violatingSnapshot } from "./fixtures";

const bindings = env as unknown as WorkerEnv;
/** The organization's store, which held every project before the split. */
const store = () => organizationStore("acme");

let ana: Caller;
let ciKey: string;
const uploads: Record<string, Uint8Array> = {};
const before: Record<string, unknown> = {};

const padding = (n: number) => Array.from({ length: n / 16 }, (_, i) => i.toString(36).padStart(16, "~")).join("");

async function readAll(path: string): Promise<Uint8Array> {
  const response = await call(ana, "GET", path);
  expect(response.status, path).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

const operatorResponse = (method: string, path: string) =>
  SELF.fetch(`${BASE}/operator/v1${path}`, { method, headers: { Authorization: `Bearer ${OPERATOR_KEY}` } });

/** Turns this store back into the layout before the bucket: pieces in SQLite, no `stored_in`, nothing in R2. */
async function rewindToPieceLayout(): Promise<number> {
  const inBucket = await runInDurableObject(store(), (_instance, state) =>
    state.storage.sql.exec<{ hash: string }>("SELECT hash FROM blobs WHERE stored_in = 'r2'").toArray(),
  );
  for (const { hash } of inBucket) {
    const object = await bindings.DOCUMENTS.get(organizationContentKey("acme", hash));
    const bytes = new Uint8Array(await object!.arrayBuffer());
    await runInDurableObject(store(), (_instance, state) => {
      const pieces = Math.ceil(bytes.byteLength / CHUNK_BYTES);
      for (let index = 0; index < pieces; index++)
        state.storage.sql.exec(
          "INSERT INTO blob_chunks (hash, idx, data) VALUES (?, ?, ?)",
          hash,
          index,
          bytes.slice(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES).buffer,
        );
      state.storage.sql.exec("UPDATE blobs SET chunk_count = ? WHERE hash = ?", pieces, hash);
    });
    await bindings.DOCUMENTS.delete(organizationContentKey("acme", hash));
  }
  await runInDurableObject(store(), (_instance, state) => {
    state.storage.sql.exec("ALTER TABLE blobs DROP COLUMN stored_in");
    // Snapshot numbers were counted, not stored.
    state.storage.sql.exec("ALTER TABLE snapshots DROP COLUMN number");
    // Accepted breaks and the usage index came later still.
    state.storage.sql.exec("DROP TABLE IF EXISTS accepted_breaks");
    state.storage.sql.exec("DROP TABLE IF EXISTS usage_counts");
  });
  return inBucket.length;
}

beforeAll(async () => {
  ana = restPrincipal("ana", "keys.admin contracts.read contracts.write snapshots.write");
  uploads.contract = new TextEncoder().encode(text(ordersContract({ "x-padding": padding(2.5 * 1024 * 1024) })));
  uploads.snapshot = new TextEncoder().encode(text(violatingSnapshot()));
  const contract = await callJson(ana, "POST", "/projects/legacy/contracts?label=old", uploads.contract);
  expect(contract.status).toBe(201);
  expect((await callJson(ana, "POST", "/projects/legacy/snapshots?commit=old0000", uploads.contract)).status).toBe(201);
  const snapshot = await callJson(ana, "POST", "/projects/legacy/snapshots?commit=old0001", uploads.snapshot);
  expect(snapshot.status).toBe(201);
  ciKey = (await createKey(ana, { projects: ["legacy"], scopes: ["contracts.read", "snapshots.write"] })).secret;
  before.snapshot = snapshot.body.snapshot;
  before.verdict = (await callJson(ana, "GET", `/projects/legacy/verdicts/${snapshot.body.verdictId}`)).body;
  before.contracts = (await callJson(ana, "GET", "/projects/legacy/contracts")).body;
  before.snapshots = (await callJson(ana, "GET", "/projects/legacy/snapshots")).body;
  before.verdictId = snapshot.body.verdictId;

  // Before the split, every project lived in the organization's store.
  await intoOrganizationStore("acme", "legacy");
  expect(await rewindToPieceLayout()).toBeGreaterThanOrEqual(3); // the document and its two forms
  // The object starts again on the old layout (evicted: its next request constructs it), as after a deploy.
  await runInDurableObject(store(), async (_instance, state) => {
    const columns = (table: string) =>
      state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
        .toArray()
        .map((column) => column.name);
    expect(columns("blobs")).not.toContain("stored_in");
    expect(columns("snapshots")).not.toContain("number");
    // A store from before retention had no alarm.
    await state.storage.deleteAlarm();
  });
  await evictDurableObject(store());
});

describe("a store from before documents went to the bucket", () => {
  it("upgrades itself when it starts again, and sets its retention alarm without waiting for an upload", async () => {
    const { columns, alarm } = await runInDurableObject(store(), async (_instance, state) => ({
      columns: state.storage.sql
        .exec<{ name: string }>("SELECT name FROM pragma_table_info('blobs')")
        .toArray()
        .map((column) => column.name),
      alarm: await state.storage.getAlarm(),
    }));
    expect(columns).toContain("stored_in");
    expect(alarm).not.toBeNull();
  });

  it("keeps every record, and downloads give the uploaded bytes back, byte for byte", async () => {
    const downloaded = await readAll("/projects/legacy/contracts/1/document");
    expect(await sha256Digest(downloaded)).toBe(await sha256Digest(uploads.contract!));
    expect(downloaded.byteLength).toBe(uploads.contract!.byteLength);
    const snapshotId = (before.snapshot as { id: number }).id;
    expect(await readAll(`/projects/legacy/snapshots/${snapshotId}/document`)).toEqual(uploads.snapshot);
    expect((await callJson(ana, "GET", "/projects/legacy/contracts")).body).toEqual(before.contracts);
    expect((await callJson(ana, "GET", "/projects/legacy/snapshots")).body).toEqual(before.snapshots);
    expect((before.snapshots as { snapshots: Array<{ number: number }> }).snapshots.map((s) => s.number)).toEqual([
      2, 1,
    ]);
    expect((await callJson(ana, "GET", `/projects/legacy/verdicts/${before.verdictId}`)).body).toEqual(before.verdict);
  });

  it("takes the CI key made before, and checks a new snapshot against the old contract read from its pieces", async () => {
    const checked = await callJson(ciKey, "POST", "/projects/legacy/snapshots?commit=new0001", uploads.snapshot);
    expect(checked.status).toBe(201);
    expect(checked.body.contentReused).toBe(true);
    expect(checked.body.snapshot.number).toBe(3);
    const again = await callJson(ana, "GET", `/projects/legacy/verdicts/${checked.body.verdictId}`);
    expect(again.body.verdict).toEqual((before.verdict as { verdict: unknown }).verdict);
  });

  it("takes accepted breaks and reads the usage index, tables it did not have", async () => {
    const accepted = await callJson(ana, "POST", "/projects/legacy/accepted-breaks", {
      rule: "missing-operation",
      location: "GET /orders/{id}",
      reason: "kept until the v2 service",
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(accepted.status).toBe(201);
    const checked = await callJson(ana, "POST", "/projects/legacy/snapshots?commit=new0002", uploads.snapshot);
    expect(checked.body.verdict.approved).toBe(true);
    expect(checked.body.snapshot.number).toBe(4);
  });

  it("writes new large content to the bucket beside the old pieces", async () => {
    const next = new TextEncoder().encode(text(ordersContract({ "x-padding": padding(1024 * 1024) })));
    expect((await callJson(ana, "POST", "/projects/legacy/contracts?label=new", next)).status).toBe(201);
    const hash = await sha256Digest(next);
    const placement = await runInDurableObject(store(), (_instance, state) =>
      state.storage.sql.exec<{ stored_in: string }>("SELECT stored_in FROM blobs WHERE hash = ?", hash).one(),
    );
    expect(placement.stored_in).toBe("r2");
    expect(await readAll("/projects/legacy/contracts/2/document")).toEqual(next);
    expect(await sha256Digest(await readAll("/projects/legacy/contracts/1/document"))).toBe(
      await sha256Digest(uploads.contract!),
    );
  });

  it("keeps the project where it was, while a project created after the upgrade gets a store of its own", async () => {
    const created = await callJson(ana, "POST", "/projects/newer/contracts", text(ordersContract()));
    expect(created.status).toBe(201);
    const own = await runInDurableObject(projectStore("acme", "newer"), (_instance, state) =>
      state.storage.sql.exec<{ name: string }>("SELECT name FROM projects").toArray(),
    );
    expect(own).toEqual([{ name: "newer" }]);
    const inOrganization = await runInDurableObject(store(), (_instance, state) =>
      state.storage.sql.exec<{ name: string }>("SELECT name FROM projects ORDER BY name").toArray(),
    );
    expect(inOrganization.map((row) => row.name)).toContain("legacy");
    expect(inOrganization.map((row) => row.name)).not.toContain("newer");
    const listed = (await callJson(ana, "GET", "/projects")).body.projects as Array<{ name: string }>;
    expect(listed.map((project) => project.name)).toEqual(expect.arrayContaining(["legacy", "newer"]));
    const storage = (await callJson(ana, "GET", "/storage")).body.storage;
    const names = storage.projects.map((project: { name: string }) => project.name);
    expect(names).toEqual(expect.arrayContaining(["legacy", "newer"]));
    expect(storage.projects.find((project: { name: string }) => project.name === "newer").contracts).toBe(1);
    // Paged one at a time, the projects list and the storage report each name every project once, in order,
    // whichever store a project lives in.
    for (const [path, key] of [
      ["/projects", "projects"],
      ["/storage", "storage"],
    ] as const) {
      const paged: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 20; page++) {
        const pageUrl = `${path}?limit=1${after === null ? "" : `&after=${after}`}`;
        const answer: Record<string, any> = (await callJson(ana, "GET", pageUrl)).body;
        const body: { projects: Array<{ name: string }>; nextAfter: string | null } =
          key === "storage" ? answer.storage : answer;
        paged.push(...body.projects.map((project) => project.name));
        after = body.nextAfter;
        if (after === null) break;
      }
      const whole = key === "storage" ? names : listed.map((project) => project.name);
      expect(paged, path).toEqual([...whole].sort());
    }
  });

  it("moves the project into its own store on the organization's alarm, byte for byte, losing no write made meanwhile", async () => {
    const beforeMove = {
      contracts: (await callJson(ana, "GET", "/projects/legacy/contracts")).body,
      verdict: (await callJson(ana, "GET", `/projects/legacy/verdicts/${before.verdictId}`)).body,
      breaks: (await callJson(ana, "GET", "/projects/legacy/accepted-breaks")).body,
      document: await readAll("/projects/legacy/contracts/1/document"),
    };
    const alarmSet = await runInDurableObject(store(), (_instance, state) => state.storage.getAlarm());
    expect(alarmSet).not.toBeNull();
    // The alarm moves the project while CI keeps uploading to it.
    const [ran, during] = await Promise.all([
      runDurableObjectAlarm(store()),
      callJson(ciKey, "POST", "/projects/legacy/snapshots?commit=during1", uploads.snapshot),
    ]);
    expect(ran).toBe(true);
    expect(during.status).toBe(201);
    const where = await runInDurableObject(store(), (_instance, state) => ({
      legacyRows: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM snapshots").one().n,
      projects: state.storage.sql.exec<{ name: string }>("SELECT name FROM projects").toArray(),
      homes: state.storage.sql.exec<{ name: string }>("SELECT name FROM project_homes ORDER BY name").toArray(),
    }));
    expect(where).toEqual({ legacyRows: 0, projects: [], homes: [{ name: "legacy" }, { name: "newer" }] });
    const moved = await runInDurableObject(projectStore("acme", "legacy"), (_instance, state) =>
      state.storage.sql.exec<{ commit_sha: string }>("SELECT commit_sha FROM snapshots ORDER BY id").toArray(),
    );
    expect(moved.map((row) => row.commit_sha)).toEqual(["old0000", "old0001", "new0001", "new0002", "during1"]);
    // A call that asked where the project lives just before the move still reaches the organization's store: it is
    // answered from the project's own store.
    expect((await store().getSnapshot("legacy", during.body.snapshot.id))?.commit).toBe("during1");
    expect((await store().uploadContext("legacy")).active?.version).toBe(2);

    expect((await callJson(ana, "GET", "/projects/legacy/contracts")).body).toEqual(beforeMove.contracts);
    expect((await callJson(ana, "GET", `/projects/legacy/verdicts/${before.verdictId}`)).body).toEqual(
      beforeMove.verdict,
    );
    // The same acceptance, now last matched by the snapshot uploaded during the move.
    const { lastMatchedAt: _at, lastMatchedSnapshotId: _id, ...accepted } = beforeMove.breaks.acceptedBreaks[0];
    const afterMove = (await callJson(ana, "GET", "/projects/legacy/accepted-breaks")).body.acceptedBreaks;
    expect(afterMove).toEqual([
      { ...accepted, lastMatchedAt: expect.any(String), lastMatchedSnapshotId: during.body.snapshot.id },
    ]);
    expect(await readAll("/projects/legacy/contracts/1/document")).toEqual(beforeMove.document);
    expect(await readAll("/projects/legacy/contracts/2/document")).toEqual(
      new TextEncoder().encode(text(ordersContract({ "x-padding": padding(1024 * 1024) }))),
    );
    // Numbers and ids continue in the project's own store; the accepted break still applies.
    const after = await callJson(ciKey, "POST", "/projects/legacy/snapshots?commit=after01", uploads.snapshot);
    expect(after.status).toBe(201);
    expect(after.body.snapshot.number).toBe(6);
    expect(after.body.snapshot.id).toBe(during.body.snapshot.id + 1);
    expect(after.body.verdict.approved).toBe(true);

    // The organization's copy of the content goes a grace period later (reads that began before the move finish).
    expect((await listBucketContent(bindings, organizationSpace("acme"))).length).toBeGreaterThan(0);
    await runInDurableObject(store(), (_instance, state) => {
      state.storage.sql.exec("UPDATE moved_content SET moved_at = ?", new Date(Date.now() - 120_000).toISOString());
    });
    expect(await runDurableObjectAlarm(store())).toBe(true);
    expect(await listBucketContent(bindings, organizationSpace("acme"))).toEqual([]);
    const leftHere = await runInDurableObject(
      store(),
      (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs").one().n,
    );
    expect(leftHere).toBe(0);
    expect(await readAll("/projects/legacy/contracts/1/document")).toEqual(beforeMove.document);
  }, 90_000); // the heaviest test here (1 MiB documents moved between stores); the suite runs two files at once

  it("exports the bucket's content with the tables, and a purge removes it from the bucket", async () => {
    // The operator's export streams the content one object at a time after the tables (docs/operations.md).
    const response = await operatorResponse("GET", "/organizations/acme/export");
    expect(response.headers.get("content-type")).toContain("application/json");
    const archive = JSON.parse(await response.text()) as { contracts: Record<string, unknown> };
    expect(Object.keys(archive.contracts)).toEqual(expect.arrayContaining(["blobs", "snapshots", "ci_keys"]));
    const exported = archive.contracts.bucket_content as Array<{ hash: string; base64: string }>;
    expect(exported.length).toBeGreaterThan(1);
    for (const { hash, base64 } of exported)
      expect(await sha256Digest(new Uint8Array(Buffer.from(base64, "base64")))).toBe(hash);
    const organizationContent = exported.filter((entry) => !("project" in entry)).map((entry) => entry.hash);
    expect(await listBucketContent(bindings, organizationSpace("acme"))).toEqual(organizationContent.sort());
    // The project created after the upgrade is exported from its own store.
    const projectStores = archive.contracts.project_stores as Record<string, Record<string, Array<{ name?: string }>>>;
    expect(projectStores.newer?.projects?.map((row) => row.name)).toEqual(["newer"]);
    await store().purgeOrganization("acme");
    expect(await listBucketContent(bindings, organizationSpace("acme"))).toEqual([]);
    // The purge reached the project's own store too.
    const left = await runInDurableObject(
      projectStore("acme", "newer"),
      (_instance, state) =>
        state.storage.sql
          .exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'projects'")
          .one().n,
    );
    expect(left).toBe(0);
  });
});
