import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SQL_CONTENT_MAX } from "../../../src/contracts/store/bucket";
import { projectContentKey, projectStore } from "./stores";
import type { Env as WorkerEnv } from "../../../src/env";
import { call, callJson, createKey } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { conformingSnapshot, ORDERS_CONTRACT_YAML, ordersContract, text, violatingSnapshot } from "./fixtures";

let developer: Caller;
let ana: Caller;

async function sha256(bytes: string | Uint8Array): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

beforeAll(async () => {
  developer = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
  ana = restPrincipal("ana", "keys.admin contracts.read contracts.write snapshots.write");
});

describe("contracts, snapshots, builds and verdicts over REST", () => {
  it("refuses a snapshot for an unknown project with the next step", async () => {
    const response = await callJson(
      developer,
      "POST",
      "/projects/orders/snapshots?commit=abc123",
      text(conformingSnapshot()),
    );
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("unknown_project");
    expect(response.body.error.message).toContain("upload a contract first: POST /api/v1/projects/orders/contracts");
    expect(response.body.error.details.nextStep).toBe("POST /api/v1/projects/orders/contracts");
  });

  it("creates a project by its first contract upload, then versions further uploads and activates the latest", async () => {
    const first = await callJson(developer, "POST", "/projects/orders/contracts", text(ordersContract()), {
      "Content-Type": "application/json",
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ project: "orders", projectCreated: true, contentReused: false });
    expect(first.body.contract).toMatchObject({
      project: "orders",
      version: 1,
      active: true,
      label: null,
      format: "json",
      openapiVersion: "3.1.0",
      operationCount: 3,
      uploadedBy: "dev",
    });
    expect(first.body.contract.contentHash).toBe(await sha256(text(ordersContract())));
    expect(first.body.verdict).toMatchObject({
      approved: true,
      violations: expect.any(Array),
      summary: expect.any(Array),
    });

    const second = await callJson(
      developer,
      "POST",
      "/projects/orders/contracts?label=003-orders",
      ORDERS_CONTRACT_YAML,
      { "Content-Type": "application/yaml" },
    );
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({
      projectCreated: false,
      contract: { version: 2, label: "003-orders", format: "yaml", openapiVersion: "3.0.3", active: true },
    });

    const list = await callJson(developer, "GET", "/projects/orders/contracts");
    expect(list.body.contracts.map((c: { version: number; active: boolean }) => [c.version, c.active])).toEqual([
      [2, true],
      [1, false],
    ]);
    const active = await callJson(developer, "GET", "/projects/orders/contracts/active");
    expect(active.body.contract.version).toBe(2);

    const downloaded = await call(developer, "GET", "/projects/orders/contracts/2/document");
    expect(downloaded.headers.get("content-type")).toContain("application/yaml");
    expect(new TextDecoder().decode(await downloaded.arrayBuffer())).toBe(ORDERS_CONTRACT_YAML);

    const activated = await callJson(developer, "POST", "/projects/orders/contracts/1/activate");
    expect(activated.status).toBe(200);
    expect(activated.body.contract).toMatchObject({ version: 1, active: true });
    const one = await callJson(developer, "GET", "/projects/orders/contracts/1");
    expect(one.body).toMatchObject({ contract: { version: 1, active: true }, verdict: { approved: true } });
    expect((await callJson(developer, "GET", "/projects/orders/contracts/9")).status).toBe(404);
  });

  it("flags a contract that breaks its own constitution", async () => {
    const internal = ordersContract();
    (internal.paths as Record<string, unknown>)["/internal/jobs"] = {
      get: { operationId: "listJobs", responses: { "200": { description: "ok" } } },
    };
    const response = await callJson(developer, "POST", "/projects/constitution-demo/contracts", text(internal));
    expect(response.status).toBe(201);
    expect(response.body.verdict.approved).toBe(false);
    expect(response.body.verdict.violations).toContainEqual(
      expect.objectContaining({ rule: "forbidden-path-prefix", severity: "error" }),
    );
  });

  it("checks a snapshot against the active contract and returns the verdict", async () => {
    const ok = await callJson(
      developer,
      "POST",
      "/projects/orders/snapshots?commit=1111111&branch=main&runUrl=https%3A%2F%2Fci.example%2Fruns%2F1",
      text(conformingSnapshot()),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.snapshot).toMatchObject({
      project: "orders",
      commit: "1111111",
      branch: "main",
      runUrl: "https://ci.example/runs/1",
      contractVersion: 1,
      uploadedBy: "dev",
      approved: true,
    });
    expect(ok.body.verdict).toMatchObject({ approved: true });
    expect(ok.body.contract).toEqual({ version: 1, label: null });

    const bad = await callJson(
      developer,
      "POST",
      "/projects/orders/snapshots?commit=2222222",
      text(violatingSnapshot()),
    );
    expect(bad.status).toBe(201);
    expect(bad.body.verdict.approved).toBe(false);
    expect(bad.body.verdict.violations).toContainEqual(
      expect.objectContaining({
        rule: "missing-operation",
        severity: "error",
        location: expect.stringContaining("GET /orders/{id}"),
      }),
    );
    expect(bad.body.snapshot).toMatchObject({ approved: false, totalViolations: bad.body.verdict.totalViolations });
    expect(bad.body.markdown).toContain("Rejected");
    expect(bad.body.markdown).toContain("missing-operation");
    expect(bad.body.markdown).toContain(`of orders (id ${bad.body.snapshot.id}, commit 2222222)`);
    expect(ok.body.markdown).toContain("Approved");

    const fetched = await callJson(developer, "GET", `/projects/orders/snapshots/${bad.body.snapshot.id}`);
    expect(fetched.body).toEqual({ snapshot: bad.body.snapshot, verdict: bad.body.verdict });
    expect(fetched.body.verdict.violations.length).toBeGreaterThan(0);
    const latest = await callJson(developer, "GET", "/projects/orders/snapshots/latest");
    expect(latest.body.snapshot.id).toBe(bad.body.snapshot.id);
    const list = await callJson(developer, "GET", "/projects/orders/snapshots?limit=1");
    expect(list.body.snapshots.map((s: { id: number }) => s.id)).toEqual([bad.body.snapshot.id]);
    const older = await callJson(developer, "GET", `/projects/orders/snapshots?limit=1&before=${list.body.nextBefore}`);
    expect(older.body.snapshots.map((s: { id: number }) => s.id)).toEqual([ok.body.snapshot.id]);

    const verdict = await callJson(developer, "GET", `/projects/orders/verdicts/${bad.body.verdictId}`);
    expect(verdict.body.record).toMatchObject({
      id: bad.body.verdictId,
      subject: "snapshot",
      snapshotId: bad.body.snapshot.id,
      contractVersion: 1,
      approved: false,
    });
    expect(verdict.body.verdict).toEqual(bad.body.verdict);
    const verdicts = await callJson(developer, "GET", "/projects/orders/verdicts");
    expect(verdicts.body.verdicts.map((v: { subject: string }) => v.subject)).toEqual([
      "snapshot",
      "snapshot",
      "contract",
      "contract",
    ]);

    const document = await call(developer, "GET", `/projects/orders/snapshots/${ok.body.snapshot.id}/document`);
    expect(await document.text()).toBe(text(conformingSnapshot()));
  });

  it("records failed builds and reports the last build as failed until the next snapshot", async () => {
    const build = await callJson(developer, "POST", "/projects/orders/builds", {
      commit: "3333333",
      branch: "main",
      log: "error CS1002: ; expected",
    });
    expect(build.status).toBe(201);
    expect(build.body.build).toMatchObject({
      project: "orders",
      status: "failed",
      commit: "3333333",
      logExcerpt: "error CS1002: ; expected",
    });
    const status = await callJson(developer, "GET", "/projects/orders");
    expect(status.body).toMatchObject({
      lastBuildFailed: true,
      latestFailedBuild: { commit: "3333333" },
      activeContract: { version: 1 },
      project: { name: "orders" },
    });
    const builds = await callJson(developer, "GET", "/projects/orders/builds");
    expect(builds.body.builds).toHaveLength(1);

    const longLog = `${"x".repeat(100_000)}THE END`;
    const cut = await callJson(developer, "POST", "/projects/orders/builds", { commit: "4444444", log: longLog });
    expect(cut.body.build.logExcerpt.endsWith("THE END")).toBe(true);
    expect(cut.body.build.logExcerpt.length).toBeLessThan(70_000);
    expect(cut.body.build.logExcerpt).toContain("earlier characters cut");

    await callJson(developer, "POST", "/projects/orders/snapshots?commit=5555555", text(conformingSnapshot()));
    expect((await callJson(developer, "GET", "/projects/orders")).body.lastBuildFailed).toBe(false);

    const unknown = await callJson(developer, "POST", "/projects/nothing-here/builds", { commit: "1" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain("upload a contract first");
    const invalid = await callJson(developer, "POST", "/projects/orders/builds", { commit: "has space" });
    expect(invalid.status).toBe(400);
  });

  it("refuses an invalid OpenAPI document with the list of problems and stores nothing", async () => {
    const broken = text({ openapi: "3.1.0", info: { title: "x" }, paths: { orders: { get: { responses: "nope" } } } });
    const response = await callJson(developer, "POST", "/projects/broken/contracts", broken);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("invalid_document");
    expect(response.body.error.details.problems.length).toBeGreaterThan(0);
    for (const problem of response.body.error.details.problems)
      expect(problem).toEqual({ path: expect.any(String), message: expect.any(String) });
    expect(await projectStore("acme", "broken").blobInfo(await sha256(broken))).toBeNull();
    expect((await callJson(developer, "GET", "/projects/broken")).status).toBe(404);

    const notText = new Uint8Array([0xff, 0xfe, 0x00, 0x7b]);
    const binary = await callJson(developer, "POST", "/projects/orders/snapshots?commit=6666666", notText);
    expect(binary.status).toBe(422);
    expect(binary.body.error.details.problems[0].message).toContain("UTF-8");

    const before = (await callJson(developer, "GET", "/projects/orders/snapshots?limit=200")).body.snapshots.length;
    const external = ordersContract({
      components: { schemas: { Order: { $ref: "https://evil.example/order.json" } } },
    });
    const refused = await callJson(developer, "POST", "/projects/orders/snapshots?commit=7777777", text(external));
    expect(refused.status).toBe(422);
    expect(await projectStore("acme", "orders").blobInfo(await sha256(text(external)))).toBeNull();
    expect((await callJson(developer, "GET", "/projects/orders/snapshots?limit=200")).body.snapshots.length).toBe(
      before,
    );

    const empty = await callJson(developer, "POST", "/projects/orders/snapshots?commit=8888888", "");
    expect(empty.status).toBe(400);
    const noCommit = await callJson(developer, "POST", "/projects/orders/snapshots", text(conformingSnapshot()));
    expect(noCommit.status).toBe(400);
    expect(noCommit.body.error.message).toContain("commit");
  });

  it("shares the stored content of the same bytes while keeping every upload as its own record", async () => {
    const body = text(conformingSnapshot());
    const a = await callJson(developer, "POST", "/projects/orders/snapshots?commit=aaaaaaa", body);
    const b = await callJson(developer, "POST", "/projects/orders/snapshots?commit=bbbbbbb", body);
    expect(a.body.snapshot.id).not.toBe(b.body.snapshot.id);
    expect(b.body.contentReused).toBe(true);
    expect(a.body.snapshot.contentHash).toBe(b.body.snapshot.contentHash);
    const rows = await runInDurableObject(
      projectStore("acme", "orders"),
      (_instance, state) =>
        state.storage.sql
          .exec<{ n: number }>("SELECT COUNT(*) AS n FROM blob_chunks WHERE hash = ?", a.body.snapshot.contentHash)
          .one().n,
    );
    expect(rows).toBe(1);
    const first = await callJson(developer, "GET", `/projects/orders/snapshots/${a.body.snapshot.id}`);
    expect(first.body.snapshot.commit).toBe("aaaaaaa");
  });

  it("keeps a document over SQL_CONTENT_MAX in the bucket, the store naming it, and gives back the same bytes", async () => {
    const padding = Array.from({ length: (3 * 1024 * 1024) / 16 }, (_, i) => i.toString(36).padStart(16, "-")).join("");
    const upload = new TextEncoder().encode(text(ordersContract({ "x-padding": padding })));
    expect(upload.byteLength).toBeGreaterThan(2.5 * 1024 * 1024);
    const created = await callJson(developer, "POST", "/projects/large-doc/contracts", upload, {
      "Content-Type": "application/json",
    });
    expect(created.status).toBe(201);
    const hash: string = created.body.contract.contentHash;
    expect(hash).toBe(await sha256(upload));

    const stored = await runInDurableObject(projectStore("acme", "large-doc"), (_instance, state) => ({
      blob: state.storage.sql
        .exec<{ size: number; stored_in: string }>("SELECT size, stored_in FROM blobs WHERE hash = ?", hash)
        .one(),
      pieces: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blob_chunks WHERE hash = ?", hash).one()
        .n,
    }));
    expect(stored).toEqual({ blob: { size: upload.byteLength, stored_in: "r2" }, pieces: 0 });
    const object = await (env as unknown as WorkerEnv).DOCUMENTS.get(projectContentKey("acme", "large-doc", hash));
    expect(object?.size).toBe(upload.byteLength);
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(hash);
    // Its forms went to the bucket too; the small snapshot of the same project stays in SQLite.
    const small = await callJson(
      developer,
      "POST",
      "/projects/orders/snapshots?commit=small01",
      text(conformingSnapshot()),
    );
    const placementsOf = (project: string) =>
      runInDurableObject(projectStore("acme", project), (_instance, state) =>
        state.storage.sql
          .exec<{ hash: string; stored_in: string; size: number }>("SELECT hash, stored_in, size FROM blobs")
          .toArray(),
      );
    const placements = await placementsOf("large-doc");
    expect((await placementsOf("orders")).find((row) => row.hash === small.body.snapshot.contentHash)?.stored_in).toBe(
      "sql",
    );
    for (const row of placements) expect(row.stored_in).toBe(row.size > SQL_CONTENT_MAX ? "r2" : "sql");
    expect(placements.filter((row) => row.stored_in === "r2").length).toBeGreaterThan(1);

    const downloaded = await call(
      developer,
      "GET",
      `/projects/large-doc/contracts/${created.body.contract.version}/document`,
    );
    expect(downloaded.status).toBe(200);
    const bytes = new Uint8Array(await downloaded.arrayBuffer());
    expect(bytes.byteLength).toBe(upload.byteLength);
    expect(bytes.every((byte, i) => byte === upload[i])).toBe(true);
  });

  it("loses nothing under concurrent uploads to one project", async () => {
    const before = (await callJson(developer, "GET", "/projects/orders")).body.project;
    const snapshots = Array.from({ length: 12 }, (_, i) =>
      callJson(
        developer,
        "POST",
        `/projects/orders/snapshots?commit=c${i}`,
        text(i % 2 ? conformingSnapshot() : violatingSnapshot()),
      ),
    );
    const contracts = Array.from({ length: 6 }, (_, i) =>
      callJson(
        developer,
        "POST",
        `/projects/orders/contracts?label=parallel-${i}`,
        text(ordersContract({ info: { title: "Orders", version: `9.${i}` } })),
      ),
    );
    const results = await Promise.all([...snapshots, ...contracts]);
    for (const result of results) expect(result.status).toBe(201);
    const snapshotIds = results.slice(0, 12).map((r) => r.body.snapshot.id);
    expect(new Set(snapshotIds).size).toBe(12);
    const versions = results
      .slice(12)
      .map((r) => r.body.contract.version)
      .sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 6 }, (_, i) => before.contractCount + 1 + i));
    const after = (await callJson(developer, "GET", "/projects/orders")).body.project;
    expect(after.snapshotCount).toBe(before.snapshotCount + 12);
    expect(after.contractCount).toBe(before.contractCount + 6);
    const listed = await callJson(developer, "GET", "/projects/orders/snapshots?limit=200");
    for (const id of snapshotIds) expect(listed.body.snapshots.some((s: { id: number }) => s.id === id)).toBe(true);
  });

  it("refuses bodies over the size limit with 413 and stores nothing", async () => {
    const size = 30 * 1024 * 1024;
    const big = new Uint8Array(size).fill(0x20);
    big.set(new TextEncoder().encode('{"openapi":"3.1.0"'), 0);
    const before = (await callJson(developer, "GET", "/projects/orders")).body.project;
    const declared = await callJson(developer, "POST", "/projects/orders/snapshots?commit=big1", big);
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe("payload_too_large");
    expect(declared.body.error.message).toContain("Nothing was stored");

    // Without a Content-Length (chunked): counted while streaming, refused at the limit, the rest drained.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= size) return controller.close();
        const piece = big.subarray(sent, sent + 1024 * 1024);
        sent += piece.byteLength;
        controller.enqueue(piece.slice());
      },
    });
    const streamed = await callJson(developer, "POST", "/projects/orders/contracts", stream);
    expect(streamed.status).toBe(413);

    const after = (await callJson(developer, "GET", "/projects/orders")).body.project;
    expect(after).toEqual(before);
    expect(await projectStore("acme", "orders").blobInfo(await sha256(big))).toBeNull();
    const pieces = await runInDurableObject(
      projectStore("acme", "orders"),
      (_instance, state) =>
        state.storage.sql
          .exec<{ n: number }>(
            "SELECT COUNT(*) AS n FROM blob_chunks c WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = c.hash)",
          )
          .one().n,
    );
    expect(pieces).toBe(0);
  });

  it("limits a CI key to its projects and scopes", async () => {
    await callJson(developer, "POST", "/projects/billing/contracts", text(ordersContract()));
    const key = await createKey(ana, { projects: ["orders"], scopes: ["snapshots.write", "contracts.read"] });
    const allowed = await callJson(
      key.secret,
      "POST",
      "/projects/orders/snapshots?commit=ci1",
      text(conformingSnapshot()),
    );
    expect(allowed.status).toBe(201);
    expect(allowed.body.snapshot.uploadedBy).toBe(`ci-key:${key.id}`);
    const elsewhere = await callJson(
      key.secret,
      "POST",
      "/projects/billing/snapshots?commit=ci2",
      text(conformingSnapshot()),
    );
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error.code).toBe("project_not_allowed");
    expect((await callJson(key.secret, "GET", "/projects/billing/snapshots")).status).toBe(403);
    const projects = await callJson(key.secret, "GET", "/projects");
    expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual(["orders"]);
    const noWrite = await call(key.secret, "POST", "/projects/orders/contracts", text(ordersContract()));
    expect(noWrite.status).toBe(403);
    expect(noWrite.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="snapshots.write contracts.read contracts.write"',
    );
    const refusal = (await noWrite.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("insufficient_scope");
    expect(refusal.error.message).toContain("needs the scope contracts.write, which your CI key does not carry");
    expect(refusal.error.message).toContain("Ask your organization admin for a CI key with the scope contracts.write");

    const all = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const everything = await callJson(all.secret, "GET", "/projects");
    expect(everything.body.projects.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["billing", "orders"]),
    );
    expect(
      (await call(all.secret, "POST", "/projects/orders/snapshots?commit=x", text(conformingSnapshot()))).status,
    ).toBe(403);
  });

  it("validates project names and ids", async () => {
    expect((await callJson(developer, "GET", "/projects/Bad%20Name")).body.error.code).toBe("invalid_project_name");
    expect((await callJson(developer, "GET", "/projects/orders/snapshots/abc")).status).toBe(400);
    expect((await callJson(developer, "GET", "/projects/orders/snapshots?limit=0")).status).toBe(400);
    expect((await callJson(developer, "GET", "/projects/orders/snapshots/999999")).status).toBe(404);
  });
});

/**
 * Concurrent contract uploads to one project are queued in the organization's store, never refused: CI that uploads
 * 20 versions at once (through the Worker's front door, with a CI key, as CI does) gets 20 answers of 201, versions
 * 1..20 without a gap, and every version was compared with the version just before it, which only holds when each
 * comparison ran after its predecessor was recorded. Before the queue each upload compared outside the store and
 * retried on a stale comparison; some gave up with 409 "busy" (4 of these 20).
 */
describe("concurrent contract uploads to one project", () => {
  const UPLOADS = 20;

  it(`queues ${UPLOADS} at once: all succeed, versions 1..${UPLOADS} contiguous, each compared with its predecessor`, async () => {
    const ci = (await createKey(ana, { projects: ["queued"], scopes: ["contracts.write", "contracts.read"] })).secret;
    const results = await Promise.all(
      Array.from({ length: UPLOADS }, (_, i) =>
        callJson(
          ci,
          "POST",
          `/projects/queued/contracts?label=parallel-${i}`,
          text(ordersContract({ info: { title: "Orders", version: `9.${i}` } })),
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array(UPLOADS).fill(201));
    const versions = results.map((result) => result.body.contract.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: UPLOADS }, (_, i) => i + 1));
    for (const result of results) {
      const { version, changes } = result.body.contract as {
        version: number;
        changes: { comparedWithVersion: number } | null;
      };
      expect(changes?.comparedWithVersion ?? null).toBe(version === 1 ? null : version - 1);
    }
    const listed = await callJson(ci, "GET", "/projects/queued/contracts?limit=50");
    expect(listed.body.contracts.map((contract: { version: number }) => contract.version)).toEqual(
      Array.from({ length: UPLOADS }, (_, i) => UPLOADS - i),
    );
    expect(new Set(listed.body.contracts.map((contract: { label: string }) => contract.label)).size).toBe(UPLOADS);
  });
});
