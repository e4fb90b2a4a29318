/**
 * How Arbiter's storage behaves as an organization's history grows (issue 33; docs/benchmarks.md "Storage at scale").
 * `npm run bench:scale` starts `wrangler dev` (workerd, local Durable Objects, KV and R2, as `npm start` runs) on a
 * state directory of its own and prints, as ratios to the smallest size with the spread (p10-p90) of each median:
 *
 * 1. History curves: a snapshot upload and the first and last pages of the snapshot and verdict lists of a project
 *    holding 0, 1,000 and 10,000 snapshots, a 3-snapshot project's list in that organization, the projects list, and
 *    the audit trail's first page, a frequent filter, a rare one and one that matches nothing at 1,000 and 100,000
 *    records (and a million). Between sizes the server is stopped and the organization's store and audit trail are grown in their
 *    SQLite files directly (rows copied from real uploads and calls), then the server starts again on that state.
 * 2. Storage per snapshot: database and bucket bytes per snapshot (GET /api/v1/storage) for small, 1 MB and 13 MB
 *    (GitHub's description) documents, each upload's bytes distinct, and the database size retention leaves in
 *    steady state.
 * 3. Twenty concurrent 1 MB snapshot uploads to 20 projects of one organization against 20 projects of 20
 *    organizations (created at runtime, members signed in at a loopback OpenID Connect provider), rounds alternated.
 *
 * 4. Memory per open MCP session (2025-11-25, initialized, then idle): workerd's RSS and the Worker isolate's V8 heap
 *    (DevTools Runtime.getHeapUsage after a collection) at 10 and 500 sessions, and again after --idle seconds.
 *
 * 5. The usage index's cost ("is this break used?", docs/ci.md): a breaking snapshot upload to a project whose index
 *    is empty against one holding 90 days of 1,000 counts a day on the broken operation (90,000 rows, 30,000 in the
 *    evidence window), alternated; and an approved upload, which reads no usage.
 *
 * 6. Projects: a small snapshot upload to one project, the projects list's first page and the whole list (no
 *    `?limit=`, which answers every project by design) with 100, 10,000 and 100,000 more projects in the
 *    organization's directory (rows grown in its SQLite file as above). The smallest size is 100, not 0, so that every
 *    size's first page is full and measured on a server started again on grown state, as the larger ones are.
 *
 * Options: --sizes=0,1000,10000  --audit=1000,100000,1000000  --projects=100,10000,100000  --rounds=5  --idle=75
 *          --skip=bytes,concurrency,sessions,usage,projects
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DatabaseSync } from "node:sqlite";
import { obtainToken } from "../test/helpers/oauth-http";
import { startTestProvider, type TestProvider } from "../test/helpers/oidc-test-provider";
import { orgSignIn } from "../test/helpers/org-sign-in";
import { freePort, startWranglerDev, type WranglerDev } from "../test/helpers/wrangler-dev";
import { conformingSnapshot, ordersContract } from "../test/worker/contracts-api/fixtures";
import { type DevTools, devtools } from "./devtools";
import { githubText } from "./github-fixture";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key!, value ?? "true"] as const;
  }),
);
const numbers = (key: string, fallback: number[]) => (args.get(key) ?? fallback.join(",")).split(",").map(Number);
const SIZES = numbers("sizes", [0, 1_000, 10_000]);
const AUDIT_SIZES = numbers("audit", [1_000, 100_000, 1_000_000]);
const PROJECT_SIZES = numbers("projects", [100, 10_000, 100_000]);
const ROUNDS = Number(args.get("rounds") ?? 5);
const IDLE_SECONDS = Number(args.get("idle") ?? 75);
const SKIP = new Set((args.get("skip") ?? "").split(","));
const REPEATS = 25;
const OPERATOR_KEY = `scale-operator-${crypto.randomUUID()}`;
const SESSION_SECRET = `scale-session-${crypto.randomUUID()}`;
const IDP_SECRET = `scale-idp-${crypto.randomUUID()}`;
const ORGANIZATIONS = 20;
const BENCH_QUOTAS = { rest: { limit: 1_000_000, windowSeconds: 60 } };

// ---- figures ----------------------------------------------------------------------------------------------------

interface Figure {
  median: number;
  p10: number;
  p90: number;
}

function figure(values: number[]): Figure {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]!;
  return { median: at(0.5), p10: at(0.1), p90: at(0.9) };
}

const ms = (f: Figure) => `${f.median.toFixed(1)} ms (${f.p10.toFixed(1)}-${f.p90.toFixed(1)})`;
const ratio = (f: Figure, base: Figure) =>
  `${(f.median / base.median).toFixed(2)}x (${(f.p10 / base.median).toFixed(2)}-${(f.p90 / base.median).toFixed(2)})`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

async function timeRequest(send: () => Promise<Response>, expected = 200): Promise<number> {
  const start = performance.now();
  const response = await send();
  const text = await response.text();
  const took = performance.now() - start;
  if (response.status !== expected) throw new Error(`answered ${response.status}: ${text.slice(0, 300)}`);
  return took;
}

async function repeat(times: number, send: () => Promise<Response>, expected = 200): Promise<Figure> {
  await timeRequest(send, expected); // warm-up
  const took: number[] = [];
  for (let i = 0; i < times; i++) took.push(await timeRequest(send, expected));
  return figure(took);
}

// ---- the server and its callers ---------------------------------------------------------------------------------

const state = await mkdtemp(join(tmpdir(), "arbiter-scale-"));
const port = await freePort();
let dev!: WranglerDev;
let provider: TestProvider | undefined;

const inspectorPort = await freePort();

async function start(): Promise<void> {
  dev = await startWranglerDev({
    port,
    inspectorPort,
    persistTo: state,
    vars: { ARBITER_DEV_SIGN_IN: "true", ARBITER_OPERATOR_KEY: OPERATOR_KEY, SESSION_SECRET },
  });
}

const api = (token: string) => ({
  get: (path: string) => fetch(`${dev.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${token}` } }),
  post: (path: string, body: string) =>
    fetch(`${dev.url}/api/v1${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body,
    }),
});

async function operator(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${dev.url}/operator/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`operator ${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

let uploads = 0;
/** A small snapshot whose bytes no other upload has (CI's usual case: every build's document differs a little). */
function smallSnapshot(): string {
  return JSON.stringify({ ...conformingSnapshot(), "x-build": `${Date.now()}-${uploads++}` });
}

/** A snapshot of about `bytes` bytes, distinct from every other. */
function paddedSnapshot(bytes: number): string {
  const tag = `${Date.now()}-${uploads++}-`;
  return JSON.stringify({ ...conformingSnapshot(), "x-padding": tag + "p".repeat(Math.max(0, bytes - 1_000)) });
}

async function expectStatus(response: Promise<Response>, status: number, what: string): Promise<any> {
  const answer = await response;
  const text = await answer.text();
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

// ---- growing the stores in their SQLite files -------------------------------------------------------------------

async function sqliteFiles(className: string): Promise<string[]> {
  const dir = join(state, "v3", "do", `arbiter-${className}`);
  return (await readdir(dir))
    .filter((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite")
    .map((name) => join(dir, name));
}

/**
 * The one file of `className` whose database answers `probe` with a row. A database the stopped server has not yet
 * let go of (busy or locked) is asked again, for up to 10 s.
 */
async function fileWhere(className: string, probe: string): Promise<string> {
  const problems: string[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    problems.length = 0;
    for (const file of await sqliteFiles(className)) {
      const db = new DatabaseSync(file);
      try {
        if (db.prepare(probe).get()) return file;
      } catch (error) {
        // Another object's database, without that table, is not a problem; a busy one is asked again.
        if (!/no such table/.test(String(error))) problems.push(`${file}: ${String(error)}`);
      } finally {
        db.close();
      }
    }
    if (problems.length === 0) break;
    await new Promise((resume) => setTimeout(resume, 500));
  }
  throw new Error(`no ${className} database answers ${probe}${problems.length ? `; ${problems.join("; ")}` : ""}`);
}

/** Copies the project's newest snapshot and its verdict until the project holds `target` snapshots. */
async function growSnapshots(project: string, target: number): Promise<void> {
  const db = new DatabaseSync(await fileWhere("ContractStore", `SELECT 1 FROM projects WHERE name = '${project}'`));
  try {
    const count = Number((db.prepare("SELECT COUNT(*) AS n FROM snapshots WHERE project = ?").get(project) as any).n);
    const template = db
      .prepare("SELECT * FROM snapshots WHERE project = ? ORDER BY id DESC LIMIT 1")
      .get(project) as any;
    const verdict = db.prepare("SELECT * FROM verdicts WHERE snapshot_id = ?").get(template.id) as any;
    const insertSnapshot = db.prepare(
      `INSERT INTO snapshots (project, seq, number, commit_sha, branch, run_url, content_hash, size, format,
         openapi_version, operation_count, contract_id, uploaded_by, uploaded_at)
       VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertVerdict = db.prepare(
      `INSERT INTO verdicts (project, subject, snapshot_id, contract_id, approved, total_violations, error_count,
         verdict_hash, created_at) VALUES (?, 'snapshot', ?, ?, ?, ?, ?, ?, ?)`,
    );
    let seq = Number((db.prepare("SELECT value FROM counters WHERE name = 'events'").get() as any).value);
    let number = Number(template.number);
    const at = new Date().toISOString();
    db.exec("BEGIN");
    for (let i = count; i < target; i++) {
      seq++;
      number++;
      const inserted = insertSnapshot.run(
        project,
        seq,
        number,
        (0x10000000 + number).toString(16).padEnd(40, "0"),
        i % 5 === 0 ? "main" : `feature-${i % 7}`,
        template.content_hash,
        template.size,
        template.format,
        template.openapi_version,
        template.operation_count,
        template.contract_id,
        template.uploaded_by,
        at,
      );
      insertVerdict.run(
        project,
        inserted.lastInsertRowid,
        verdict.contract_id,
        verdict.approved,
        verdict.total_violations,
        verdict.error_count,
        verdict.verdict_hash,
        at,
      );
    }
    db.prepare("UPDATE counters SET value = ? WHERE name = 'events'").run(seq);
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

/**
 * Grows the organization's directory of projects (`project_homes`) by `target` rows in all: copies of `template`'s
 * row under other names, as projects in stores of their own that reported once (their stores are never called here),
 * holding no bytes, so that the storage quota never refuses the uploads measured beside them.
 */
async function growProjects(template: string, target: number): Promise<void> {
  const db = new DatabaseSync(
    await fileWhere("ContractStore", `SELECT 1 FROM project_homes WHERE name = '${template}'`),
  );
  try {
    const have = Number(
      (db.prepare("SELECT COUNT(*) AS n FROM project_homes WHERE name LIKE 'grown-%'").get() as any).n,
    );
    const insert = db.prepare(
      `INSERT INTO project_homes (name, summary, updated_at)
       SELECT ?, json_set(summary, '$.project.name', ?, '$.used.databaseBytes', 0, '$.used.bucketBytes', 0), updated_at
       FROM project_homes WHERE name = ?`,
    );
    db.exec("BEGIN");
    for (let i = have; i < target; i++) {
      const name = `grown-${String(i).padStart(7, "0")}`;
      insert.run(name, name, template);
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

/**
 * Grows the organization's audit trail from `grown` to `target` records: 20 clients, 12 targets (whoami the most
 * frequent), about 1 in 1,000 rate-limited, spread over the last 30 days. They are written into the organization's own
 * audit store, as records from before the trail was split by day (docs/governance.md): only the Worker makes a day's
 * store. When the server starts again, that store moves them to their days' stores (waitForAuditMoves), so the
 * queries read the trail as it is kept: about 30 days' stores.
 */
async function growAudit(organization: string, grown: number, target: number): Promise<void> {
  const file = await fileWhere(
    "AuditLog",
    `SELECT 1 FROM audit_meta WHERE key = 'organization' AND value = '${organization}'
     AND NOT EXISTS (SELECT 1 FROM audit_meta WHERE key = 'day')`,
  );
  const db = new DatabaseSync(file);
  try {
    // Records from before the split, all of them: where the store's move had got to is forgotten, so it moves these too.
    db.exec("DELETE FROM audit_meta WHERE key = 'moved_through'");
    const insert = db.prepare(
      `INSERT INTO audit_events (correlation_id, time, time_ms, organization_id, user_id, client_id, kind, target,
         arguments_digest, duration_ms, outcome, reason, delivery_id) VALUES (?, ?, ?, ?, ?, ?, 'tool', ?, ?, ?, ?, '', ?)`,
    );
    const targets = ["whoami", "whoami", "whoami", "orders_search", "orders_get", "spec_verdict_latest"];
    const extra = ["spec_project_select", "audit_events_list", "spec_contract_get", "spec_snapshot_list"];
    const now = Date.now();
    db.exec("BEGIN");
    for (let i = grown; i < target; i++) {
      const time = now - Math.floor(((i * 7919) % 2_592_000) * 1000);
      insert.run(
        crypto.randomUUID(),
        new Date(time).toISOString(),
        time,
        organization,
        `user-${i % 40}`,
        `client-${i % 20}`,
        i % 10 < 6 ? targets[i % targets.length]! : extra[i % extra.length]!,
        // As the Worker writes them: a digest of the arguments, and (half of them, the session lane's) a delivery id.
        `sha256:${createHash("sha256").update(String(i)).digest("hex")}`,
        5 + (i % 50),
        i % 1000 === 7 ? "rate-limited" : "ok",
        i % 2 === 0
          ? `${createHash("sha256")
              .update(`session-${i % 97}`)
              .digest("hex")}:${i}`
          : null,
      );
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  // What a record costs on disk with its indexes: what decides how many records one store of a day can hold.
  const bytes = statSync(file).size;
  const records = target - grown;
  console.log(
    `audit store: ${records} records, ${bytes} bytes on disk, ${Math.round(bytes / records)} bytes per record`,
  );
}

/** Waits until the organization's own audit store has moved its records from before the split to their days. */
async function waitForAuditMoves(token: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const answer = await api(token).get("/audit/trail");
    const { trail } = (await answer.json()) as { trail: { moving: boolean; days: number } };
    if (!trail.moving) {
      console.log(`audit records moved to ${trail.days} days' stores in ${Math.round(performance.now() - started)} ms`);
      return;
    }
    await new Promise((resume) => setTimeout(resume, 1_000));
  }
}

// ---- the sections ---------------------------------------------------------------------------------------------

interface HistoryRow {
  size: number;
  upload: Figure;
  snapshotsFirst: Figure;
  snapshotsLast: Figure;
  verdictsFirst: Figure;
  verdictsLast: Figure;
  smallProject: Figure;
  projects: Figure;
}

async function lastPageKey(list: "snapshots" | "verdicts"): Promise<number | null> {
  // The oldest rows are the ones this bench uploaded before growing the project: their ids are the smallest.
  const db = new DatabaseSync(await fileWhere("ContractStore", "SELECT 1 FROM projects WHERE name = 'scale'"), {
    readOnly: true,
  });
  try {
    const row = db.prepare(`SELECT id FROM ${list} WHERE project = 'scale' ORDER BY id LIMIT 1 OFFSET 50`).get() as
      | { id: number }
      | undefined;
    return row ? Number(row.id) : null;
  } finally {
    db.close();
  }
}

async function history(token: string, size: number): Promise<HistoryRow> {
  const client = api(token);
  const keys = { snapshots: await lastPageKey("snapshots"), verdicts: await lastPageKey("verdicts") };
  const page = (list: "snapshots" | "verdicts", key: number | null) =>
    `/projects/scale/${list}?limit=50${key === null ? "" : `&before=${key}`}`;
  const row: HistoryRow = {
    size,
    snapshotsFirst: await repeat(REPEATS, () => client.get(page("snapshots", null))),
    snapshotsLast: await repeat(REPEATS, () => client.get(page("snapshots", keys.snapshots))),
    verdictsFirst: await repeat(REPEATS, () => client.get(page("verdicts", null))),
    verdictsLast: await repeat(REPEATS, () => client.get(page("verdicts", keys.verdicts))),
    smallProject: await repeat(REPEATS, () => client.get("/projects/small/snapshots?limit=50")),
    projects: await repeat(REPEATS, () => client.get("/projects")),
    // Last: each upload adds a snapshot (15 on a size of 1,000 or more is within the curve's noise).
    upload: await repeat(15, () => client.post("/projects/scale/snapshots?commit=feedbeef", smallSnapshot()), 201),
  };
  return row;
}

interface AuditRow {
  size: number;
  first: Figure;
  frequent: Figure;
  rare: Figure;
  none: Figure;
}

async function auditQueries(token: string, size: number): Promise<AuditRow> {
  const client = api(token);
  return {
    size,
    first: await repeat(REPEATS, () => client.get("/audit/events?limit=50")),
    frequent: await repeat(REPEATS, () => client.get("/audit/events?limit=50&target=whoami")),
    rare: await repeat(REPEATS, () => client.get("/audit/events?limit=50&outcome=rate-limited")),
    none: await repeat(REPEATS, () => client.get("/audit/events?limit=50&clientId=no-such-client")),
  };
}

async function storageOf(token: string): Promise<{ databaseBytes: number; bucketBytes: number }> {
  return (await expectStatus(api(token).get("/storage"), 200, "GET /storage")).storage;
}

async function bytesPerSnapshot(token: string): Promise<void> {
  const client = api(token);
  const github = githubText();
  await expectStatus(client.post("/projects/github/contracts?create=true", github), 201, "GitHub contract");
  const kinds = [
    { name: "small", count: 40, project: "scale", body: () => smallSnapshot() },
    { name: "1 MB", count: 10, project: "scale", body: () => paddedSnapshot(1_000_000) },
    {
      name: "13 MB (GitHub)",
      count: 3,
      project: "github",
      // The description as published (13 MB, indented), with its version changed so every upload's bytes differ.
      body: () => github.replace(/"version": "[^"]*"/, `"version": "scale-${uploads++}"`),
    },
  ];
  console.log("\n## Storage per snapshot (GET /api/v1/storage before and after; every upload's bytes distinct)\n");
  console.log("| Document | Snapshots | Database bytes per snapshot | Bucket bytes per snapshot |");
  console.log("| --- | --- | --- | --- |");
  const perSnapshot: Record<string, number> = {};
  for (const kind of kinds) {
    const before = await storageOf(token);
    for (let i = 0; i < kind.count; i++)
      await expectStatus(client.post(`/projects/${kind.project}/snapshots?commit=b0b0`, kind.body()), 201, kind.name);
    const after = await storageOf(token);
    const database = (after.databaseBytes - before.databaseBytes) / kind.count;
    const bucket = (after.bucketBytes - before.bucketBytes) / kind.count;
    perSnapshot[kind.name] = database;
    console.log(`| ${kind.name} | ${kind.count} | ${Math.round(database)} | ${Math.round(bucket)} |`);
  }
  // Retention's steady state: 20 projects, 10 snapshots a day each, 90 days kept (the default policy).
  const kept = 20 * 10 * 90;
  const worst = Math.max(...Object.values(perSnapshot), 1);
  console.log(
    `\nSteady state under the default retention (20 projects x 10 snapshots a day x 90 days = ${kept} snapshots):` +
      ` about ${mib(kept * worst)} of database at the largest per-snapshot cost measured, against 9 GB where` +
      " uploads are refused: no days-to-limit, the database stops growing once retention deletes as much as arrives.",
  );
}

async function concurrency(anaToken: string): Promise<void> {
  provider = await startTestProvider({
    clientId: "arbiter-scale",
    clientSecret: IDP_SECRET,
    redirectUris: [`${dev.url}/signin/org/callback`],
    accounts: Object.fromEntries(
      Array.from({ length: ORGANIZATIONS }, (_, i) => {
        const id = `scale${String(i + 1).padStart(2, "0")}`;
        return [id, { claims: { name: id, email: `ci@${id}.example`, email_verified: true } }];
      }),
    ),
  });
  const tokens: string[] = [];
  for (let i = 0; i < ORGANIZATIONS; i++) {
    const id = `scale${String(i + 1).padStart(2, "0")}`;
    await operator("POST", "/organizations", {
      id,
      name: `Scale ${i + 1}`,
      emailDomains: [`${id}.example`],
      defaultRole: "developer",
      quotas: BENCH_QUOTAS,
      signIn: { issuer: provider.issuer, clientId: "arbiter-scale" },
    });
    await operator("PUT", `/organizations/${id}/secrets/signInClientSecret`, { value: IDP_SECRET });
    const signed = await orgSignIn({
      arbiter: dev.url,
      account: id,
      email: `ci@${id}.example`,
      scope: "contracts.read contracts.write snapshots.write",
      resource: `${dev.url}/api`,
    });
    if (!signed.token) throw new Error(`${id}: sign-in stopped at ${signed.page?.status}`);
    tokens.push(signed.token);
    await expectStatus(
      api(signed.token).post("/projects/p/contracts?create=true", JSON.stringify(ordersContract())),
      201,
      id,
    );
  }
  const ana = api(anaToken);
  for (let i = 0; i < ORGANIZATIONS; i++)
    await expectStatus(
      ana.post(`/projects/c${i + 1}/contracts?create=true`, JSON.stringify(ordersContract())),
      201,
      "acme",
    );

  const batch = async (targets: Array<{ token: string; project: string }>) => {
    const bodies = targets.map(() => paddedSnapshot(1_000_000));
    const start = performance.now();
    const each = await Promise.all(
      targets.map(async (target, i) => {
        const began = performance.now();
        await expectStatus(
          api(target.token).post(`/projects/${target.project}/snapshots?commit=c0c0`, bodies[i]!),
          201,
          "upload",
        );
        return performance.now() - began;
      }),
    );
    return { wall: performance.now() - start, each };
  };
  const within = Array.from({ length: ORGANIZATIONS }, (_, i) => ({ token: anaToken, project: `c${i + 1}` }));
  const across = tokens.map((token) => ({ token, project: "p" }));
  await batch(within); // warm-up of both shapes
  await batch(across);
  const walls = { within: [] as number[], across: [] as number[] };
  const each = { within: [] as number[], across: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of round % 2 === 0 ? (["within", "across"] as const) : (["across", "within"] as const)) {
      const result = await batch(shape === "within" ? within : across);
      walls[shape].push(result.wall);
      each[shape].push(...result.each);
    }
  }
  const [wallWithin, wallAcross] = [figure(walls.within), figure(walls.across)];
  const [eachWithin, eachAcross] = [figure(each.within), figure(each.across)];
  console.log(`\n## 20 concurrent 1 MB snapshot uploads (${ROUNDS} rounds of each, alternated)\n`);
  console.log("| Shape | Batch wall time | One upload | Batch ratio within / across |");
  console.log("| --- | --- | --- | --- |");
  console.log(
    `| 20 projects of one organization | ${ms(wallWithin)} | ${ms(eachWithin)} | ${ratio(wallWithin, wallAcross)} |`,
  );
  console.log(`| 20 organizations, one project each | ${ms(wallAcross)} | ${ms(eachAcross)} | 1.00x |`);
}

/** A snapshot that breaks GET /orders/{id} (its total turns into a string), distinct from every other upload. */
function breakingSnapshot(): string {
  const doc = structuredClone(ordersContract()) as {
    paths: Record<string, { get?: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
  };
  doc.paths["/orders/{id}"]!.get!.responses["200"]!.content["application/json"]!.schema = {
    type: "object",
    required: ["id", "total"],
    properties: { id: { type: "string" }, total: { type: "string" } },
  };
  return JSON.stringify({ ...doc, "x-build": `${Date.now()}-${uploads++}` });
}

async function usageCost(token: string): Promise<void> {
  const client = api(token);
  for (const project of ["usage-empty", "usage-full"])
    await expectStatus(
      client.post(`/projects/${project}/contracts?create=true`, JSON.stringify(ordersContract())),
      201,
      project,
    );
  const DAYS = 90;
  const PER_DAY = 1000;
  for (let d = 0; d < DAYS; d++) {
    const day = new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
    // The operation's own count, then one status count and 999 property paths of its 200 responses.
    const counts: Array<Record<string, unknown>> = [{ operation: "GET /orders/{id}", count: 50 }];
    for (let i = 0; i < PER_DAY; i++)
      counts.push({
        operation: "GET /orders/{id}",
        status: 200,
        field: i === 0 ? "" : `response:/lines/*/f${i}`,
        count: 1 + (i % 7),
      });
    await expectStatus(client.post("/projects/usage-full/usage", JSON.stringify({ day, counts })), 201, "usage ingest");
  }
  const send = (project: string, body: () => string) => () =>
    client.post(`/projects/${project}/snapshots?commit=u5e`, body());
  await timeRequest(send("usage-empty", breakingSnapshot), 201);
  await timeRequest(send("usage-full", breakingSnapshot), 201);
  const took = { empty: [] as number[], full: [] as number[], approved: [] as number[] };
  for (let i = 0; i < REPEATS; i++) {
    const order = i % 2 === 0 ? (["empty", "full"] as const) : (["full", "empty"] as const);
    for (const which of order) took[which].push(await timeRequest(send(`usage-${which}`, breakingSnapshot), 201));
    took.approved.push(await timeRequest(send("usage-full", smallSnapshot), 201));
  }
  const evidence = await expectStatus(
    client.post("/projects/usage-full/snapshots?commit=u5f", breakingSnapshot()),
    201,
    "check",
  );
  const usage = evidence.verdict.violations[0]?.usage;
  const [empty, full, approved] = [figure(took.empty), figure(took.full), figure(took.approved)];
  console.log(`\n## Usage evidence (${REPEATS} breaking uploads per project, alternated)\n`);
  console.log(`Evidence read in the full project: ${JSON.stringify(usage)}\n`);
  console.log("| Upload | Time | Ratio to the empty index |");
  console.log("| --- | --- | --- |");
  console.log(`| Breaking snapshot, empty usage index | ${ms(empty)} | 1.00x |`);
  console.log(
    `| Breaking snapshot, ${DAYS * (PER_DAY + 1)} counts on the broken operation | ${ms(full)} | ${ratio(full, empty)} |`,
  );
  console.log(
    `| Approved snapshot in the full project (no usage read) | ${ms(approved)} | ${ratio(approved, empty)} |`,
  );
}

/** workerd's resident memory: the one process named workerd below wrangler dev's process tree. */
function workerdRssBytes(): number {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process ended while we read.
    }
  }
  const below = (pid: number): boolean => {
    for (let current = pid, hops = 0; current > 1 && hops < 10; hops++) {
      if (current === dev.pid) return true;
      current = parents.get(current) ?? 0;
    }
    return false;
  };
  const workerd = [...names].find(([pid, name]) => name === "workerd" && below(pid))?.[0];
  if (workerd === undefined) throw new Error("no workerd process below wrangler dev");
  const status = readFileSync(`/proc/${workerd}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** The Worker isolate's V8 heap after a collection. One DevTools session serves every reading: wrangler's inspector
 * proxy does not answer a second session opened after the first closed. */
async function heapBytes(inspector: DevTools): Promise<number | null> {
  // Bounded: with 500 sessions the inspector has been seen not to answer; the RSS is still read.
  const within = async <T>(promise: Promise<T>): Promise<T | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((done) => {
      timer = setTimeout(() => done(null), 20_000);
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if ((await within(inspector.send("HeapProfiler.collectGarbage"))) === null) continue;
    const usage = await within(inspector.send("Runtime.getHeapUsage"));
    if (usage !== null) return Number(usage.usedSize);
  }
  return null;
}

/** Opens one 2025-11-25 session (initialize, then notifications/initialized) and leaves it idle. */
async function openSession(token: string): Promise<void> {
  const headers = {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  const initialize = await fetch(`${dev.url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-scale", version: "1" } },
    }),
  });
  await initialize.text();
  const session = initialize.headers.get("mcp-session-id");
  if (initialize.status !== 200 || !session) throw new Error(`initialize answered ${initialize.status}`);
  const initialized = await fetch(`${dev.url}/mcp`, {
    method: "POST",
    headers: { ...headers, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.text();
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
}

async function sessionMemory(): Promise<void> {
  const token = await obtainToken(dev.url, { user: "mia", scope: "orders.read", resource: `${dev.url}/mcp` });
  const inspector = await devtools(inspectorPort);
  const measure = async () => ({ rss: workerdRssBytes(), heap: await heapBytes(inspector) });
  const base = await measure();
  const rows: Array<{ label: string; sessions: number; rss: number; heap: number | null }> = [];
  let open = 0;
  for (const target of [10, 500]) {
    const began = performance.now();
    while (open < target) {
      await openSession(token);
      open++;
      if (open % 100 === 0) console.log(`${open} sessions open (${((performance.now() - began) / 1000).toFixed(0)} s)`);
    }
    rows.push({ label: `${target} open sessions`, sessions: target, ...(await measure()) });
  }
  await new Promise((done) => setTimeout(done, IDLE_SECONDS * 1000));
  rows.push({ label: `500 sessions, after ${IDLE_SECONDS} s idle`, sessions: 500, ...(await measure()) });
  // RSS seldom shrinks, but memory the idle sessions gave back is reused: 500 more sessions then grow it little,
  // where they would grow it as much as the first 500 if those were still held.
  while (open < 1000) {
    await openSession(token);
    open++;
  }
  rows.push({ label: "500 more sessions after that", sessions: 1000, ...(await measure()) });
  inspector.close();
  console.log("\n## Memory per open MCP session (2025-11-25, initialized, idle)\n");
  console.log(
    `Before any session: workerd RSS ${mib(base.rss)}, Worker heap ${base.heap === null ? "?" : mib(base.heap)}.\n`,
  );
  console.log("| Sessions | workerd RSS | per session | V8 heap (after GC) | per session |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows)
    console.log(
      `| ${row.label} | ${mib(row.rss)} | ${((row.rss - base.rss) / row.sessions / 1024).toFixed(0)} KiB | ${row.heap === null || base.heap === null ? "no answer from the inspector | -" : `${mib(row.heap)} | ${((row.heap - base.heap) / row.sessions / 1024).toFixed(0)} KiB`} |`,
    );
}

// ---- the run ------------------------------------------------------------------------------------------------------

console.log(
  `# bench:scale (${new Date().toISOString()}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")})`,
);
try {
  await start();
  const token = await obtainToken(dev.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write audit.read",
    resource: `${dev.url}/api`,
  });
  const client = api(token);
  // The REST quota (120 a minute per client by default) stays on, raised so that it never answers 429 here.
  await operator("PUT", "/caps", { maxCallsPerMinute: 1_000_000 });
  await operator("PATCH", "/organizations/acme", { quotas: BENCH_QUOTAS });
  for (const project of ["scale", "small"])
    await expectStatus(
      client.post(`/projects/${project}/contracts?create=true`, JSON.stringify(ordersContract())),
      201,
      project,
    );
  for (let i = 0; i < 3; i++)
    await expectStatus(client.post("/projects/small/snapshots?commit=5a5a", smallSnapshot()), 201, "small");

  const rows: HistoryRow[] = [];
  for (const [index, size] of SIZES.entries()) {
    if (index > 0) {
      await dev.stop();
      await growSnapshots("scale", size);
      await start();
    }
    rows.push(await history(token, size));
    console.log(`measured ${size} snapshots`);
  }
  const auditRows: AuditRow[] = [];
  let auditGrown = 0;
  for (const size of AUDIT_SIZES) {
    await dev.stop();
    await growAudit("acme", auditGrown, size);
    auditGrown = size;
    await start();
    await waitForAuditMoves(token);
    auditRows.push(await auditQueries(token, size));
    console.log(`measured ${size} audit records`);
  }

  console.log("\n## History curves (medians of 25 requests, 15 uploads; p10-p90; ratio to the smallest size)\n");
  const columns: Array<[string, keyof Omit<HistoryRow, "size">]> = [
    ["Snapshot upload (small)", "upload"],
    ["Snapshots, first page", "snapshotsFirst"],
    ["Snapshots, last page", "snapshotsLast"],
    ["Verdicts, first page", "verdictsFirst"],
    ["Verdicts, last page", "verdictsLast"],
    ["A 3-snapshot project's list", "smallProject"],
    ["Projects list", "projects"],
  ];
  console.log(`| Request | ${rows.map((row) => `${row.size} snapshots`).join(" | ")} |`);
  console.log(`| --- | ${rows.map(() => "---").join(" | ")} |`);
  for (const [label, key] of columns)
    console.log(
      `| ${label} | ${rows.map((row) => `${ms(row[key])}, ${ratio(row[key], rows[0]![key])}`).join(" | ")} |`,
    );

  if (auditRows.length > 0) {
    console.log("\n## Audit queries (GET /api/v1/audit/events?limit=50)\n");
    const auditColumns: Array<[string, keyof Omit<AuditRow, "size">]> = [
      ["First page", "first"],
      ["Frequent filter (target=whoami)", "frequent"],
      ["Rare filter (outcome=rate-limited)", "rare"],
      ["Filter matching nothing (clientId)", "none"],
    ];
    console.log(`| Query | ${auditRows.map((row) => `${row.size} records`).join(" | ")} |`);
    console.log(`| --- | ${auditRows.map(() => "---").join(" | ")} |`);
    for (const [label, key] of auditColumns)
      console.log(
        `| ${label} | ${auditRows.map((row) => `${ms(row[key])}, ${ratio(row[key], auditRows[0]![key])}`).join(" | ")} |`,
      );
  }

  if (!SKIP.has("projects")) {
    const projectRows: Array<{ size: number; upload: Figure; list: Figure; all: Figure }> = [];
    for (const size of PROJECT_SIZES) {
      if (size > 0) {
        await dev.stop();
        await growProjects("small", size);
        await start();
      }
      projectRows.push({
        size,
        list: await repeat(REPEATS, () => client.get("/projects?limit=50")),
        // A few only: at 100,000 projects the answer is about 17 MB.
        all: await repeat(3, () => client.get("/projects")),
        upload: await repeat(15, () => client.post("/projects/small/snapshots?commit=5a5a", smallSnapshot()), 201),
      });
      console.log(`measured ${size} more projects`);
    }
    console.log("\n## Projects in the organization (small uploads to one of them; ratio to the fewest)\n");
    console.log(`| Request | ${projectRows.map((row) => `${row.size} more projects`).join(" | ")} |`);
    console.log(`| --- | ${projectRows.map(() => "---").join(" | ")} |`);
    for (const [label, key] of [
      ["Snapshot upload (small): its quota check reads the organization's total", "upload"],
      ["Projects list, first page (limit=50)", "list"],
      ["Projects list without ?limit= (every project: grows with them by design)", "all"],
    ] as const)
      console.log(
        `| ${label} | ${projectRows.map((row) => `${ms(row[key])}, ${ratio(row[key], projectRows[0]![key])}`).join(" | ")} |`,
      );
  }
  if (!SKIP.has("usage")) await usageCost(token);
  if (!SKIP.has("bytes")) await bytesPerSnapshot(token);
  if (!SKIP.has("sessions")) await sessionMemory();
  if (!SKIP.has("concurrency")) await concurrency(token);
} finally {
  await dev?.stop();
  await provider?.stop();
  await rm(state, { recursive: true, force: true });
}
