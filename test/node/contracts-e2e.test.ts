/**
 * The CI API end to end over a real `wrangler dev` of this Worker (workerd, real HTTP on loopback):
 * GitHub's 13 MB description uploaded as a contract and as a mutated snapshot through bin/arbiter.mjs; the CLI's
 * exit codes (0 approved, 1 rejected, 2 could not verify) and its JUnit XML and Markdown reports; the CLI served
 * at /cli/arbiter.mjs (its modules joined into one file); CI keys created over HTTP; another organization's key sees nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledCli } from "../helpers/cli-sources";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "../helpers/oauth-http";
import { runProcess } from "../helpers/run-process";

const REPO = resolve(import.meta.dirname, "../..");
const CLI = resolve(REPO, "bin/arbiter.mjs");
const GITHUB = resolve(REPO, "node_modules/@octokit/openapi/generated/api.github.com.json");
const work = mkdtempSync(join(tmpdir(), "arbiter-cli-"));

let server: WranglerDev;
let acmeKey: string;
let globexKey: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string> = {}, node = process.execPath): Promise<Run> {
  return runProcess(node, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
}

function file(name: string, content: string | Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

async function api(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

const order = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
const problem = { "application/problem+json": { schema: { type: "object" } } };
const contract = {
  openapi: "3.1.0",
  info: { title: "Orders", version: "1.0.0" },
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  paths: {
    "/orders": {
      get: {
        operationId: "listOrders",
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: order } } } },
        },
      },
      post: {
        operationId: "createOrder",
        responses: {
          "201": { description: "created", content: { "application/json": { schema: order } } },
          "400": { description: "bad", content: problem },
        },
      },
    },
    "/orders/{id}": {
      get: {
        operationId: "getOrder",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: order } } } },
      },
    },
  },
};
const broken = structuredClone(contract) as { paths: Record<string, unknown> };
delete broken.paths["/orders/{id}"];

beforeAll(async () => {
  server = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } });
  const ana = await obtainToken(server.url, {
    user: "ana",
    scope: "keys.admin contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  const gus = await obtainToken(server.url, {
    user: "gus",
    scope: "keys.admin contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  expect((await api(ana, "POST", "/projects/orders/contracts", contract)).status).toBe(201);
  const created = await api(ana, "POST", "/keys", {
    name: "orders CI",
    projects: ["orders", "github"],
    scopes: ["contracts.read", "contracts.write", "snapshots.write"],
  });
  expect(created.status).toBe(201);
  acmeKey = created.body.secret;
  globexKey = (
    await api(gus, "POST", "/keys", {
      name: "globex CI",
      projects: ["*"],
      scopes: ["contracts.read", "snapshots.write"],
    })
  ).body.secret;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const ciEnv = () => ({ ARBITER_URL: server.url, ARBITER_TOKEN: acmeKey, ARBITER_PROJECT: "orders" });

describe("bin/arbiter.mjs against wrangler dev", () => {
  it("is served at /cli/arbiter.mjs as its sources joined into one file", async () => {
    const response = await fetch(`${server.url}/cli/arbiter.mjs`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(bundledCli());
  });

  it("exits 0 on an approved snapshot and writes JUnit and Markdown", async () => {
    const junit = join(work, "ok.xml");
    const markdown = join(work, "ok.md");
    const run = await runCli(
      ["snapshot", file("ok.json", JSON.stringify(contract)), "--junit", junit, "--markdown", markdown],
      {
        ...ciEnv(),
        GITHUB_SHA: "aaaa111",
        GITHUB_REF_NAME: "main",
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "acme/orders",
        GITHUB_RUN_ID: "42",
      },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("APPROVED");
    expect(run.stdout).toContain("commit aaaa111");
    expect(readFileSync(junit, "utf8")).toMatch(
      /<testsuite name="arbiter orders: snapshot 1 of orders \(id 1, commit aaaa111\)" tests="1" failures="0"/,
    );
    expect(readFileSync(markdown, "utf8")).toContain("Approved");
    const latest = await api(acmeKey, "GET", "/projects/orders/snapshots/latest");
    expect(latest.body.snapshot).toMatchObject({
      commit: "aaaa111",
      branch: "main",
      runUrl: "https://github.com/acme/orders/actions/runs/42",
    });
  });

  it("exits 1 on a rejected snapshot with the violation in the summary, JUnit and Markdown", async () => {
    const junit = join(work, "bad.xml");
    const markdown = join(work, "bad.md");
    const run = await runCli(
      [
        "snapshot",
        file("bad.json", JSON.stringify(broken)),
        "--commit",
        "bbbb222",
        "--junit",
        junit,
        "--markdown",
        markdown,
      ],
      ciEnv(),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("REJECTED");
    expect(run.stdout).toMatch(/ERROR\s+missing-operation\s+GET \/orders\/\{id\}/);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/failures="[1-9]\d*"/);
    expect(xml).toContain('<testcase name="missing-operation: GET /orders/{id}');
    expect(xml).toContain("<failure message=");
    expect(readFileSync(markdown, "utf8")).toContain("missing-operation");
    expect(readFileSync(markdown, "utf8")).toContain("Rejected");
  });

  it("runs on the system Node as well", async () => {
    const systemNode = "/usr/bin/node";
    const run = await runCli(
      ["snapshot", file("ok-again.json", JSON.stringify(contract)), "--commit", "cccc333"],
      ciEnv(),
      systemNode,
    );
    expect(run.code).toBe(0);
  });

  it("exits 2 when it cannot verify: unknown project, invalid document, bad key, unreachable server, missing config", async () => {
    const unknown = await runCli(
      ["snapshot", file("u.json", JSON.stringify(contract)), "--commit", "d1", "--project", "nothing"],
      { ...ciEnv() },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("could not verify");

    const outsideKey = await runCli(
      ["snapshot", file("u2.json", JSON.stringify(contract)), "--commit", "d1", "--project", "billing"],
      ciEnv(),
    );
    expect(outsideKey.code).toBe(2);
    expect(outsideKey.stderr).toContain("project_not_allowed");

    const invalid = await runCli(
      ["snapshot", file("invalid.yaml", "openapi: 3.1.0\ninfo: {}\n"), "--commit", "d2"],
      ciEnv(),
    );
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("invalid_document");
    expect(invalid.stderr).toMatch(/ {2}- /);

    const badKey = await runCli(["snapshot", file("k.json", JSON.stringify(contract)), "--commit", "d3"], {
      ...ciEnv(),
      ARBITER_TOKEN: `${acmeKey.slice(0, -1)}${acmeKey.endsWith("A") ? "B" : "A"}`,
    });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain("401");
    expect(badKey.stderr).toContain("Arbiter says: The CI key is unknown, revoked or expired");
    expect(badKey.stderr).not.toContain(acmeKey.slice(-20));

    const closed = `http://127.0.0.1:${new URL(server.url).port === "9" ? 10 : 9}`;
    const unreachable = await runCli(
      ["snapshot", file("n.json", JSON.stringify(contract)), "--commit", "d4", "--url", closed],
      ciEnv(),
    );
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain("Cannot reach Arbiter");

    const noToken = await runCli(["snapshot", file("t.json", "{}"), "--commit", "d5"], {
      ARBITER_URL: server.url,
      ARBITER_PROJECT: "orders",
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("ARBITER_TOKEN");

    const noFile = await runCli(["snapshot", join(work, "missing.json"), "--commit", "d6"], ciEnv());
    expect(noFile.code).toBe(2);
  });

  it("records a failed build, which the project status then reports", async () => {
    const log = file(
      "build.log",
      `${"noise\n".repeat(30_000)}error TS2322: Type 'string' is not assignable to type 'number'.\n`,
    );
    const run = await runCli(["build-failed", "--commit", "eeee555", "--log-file", log], ciEnv());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("recorded failed build");
    const status = await api(acmeKey, "GET", "/projects/orders");
    expect(status.body).toMatchObject({ lastBuildFailed: true, latestFailedBuild: { commit: "eeee555" } });
    expect(status.body.latestFailedBuild.logExcerpt).toContain("error TS2322");
  });

  it("uploads GitHub's 13 MB description over HTTP and checks a mutated copy in workerd", async () => {
    const bytes = readFileSync(GITHUB);
    const upload = await runCli(
      ["contract", GITHUB, "--project", "github", "--label", "github-rest", "--json", join(work, "gh-contract.json")],
      ciEnv(),
    );
    expect(upload.stderr).toBe("");
    expect([0, 1]).toContain(upload.code);
    const uploaded = JSON.parse(readFileSync(join(work, "gh-contract.json"), "utf8"));
    expect(uploaded.contract).toMatchObject({
      size: bytes.byteLength,
      operationCount: 1223,
      label: "github-rest",
      active: true,
    });

    const document = JSON.parse(bytes.toString("utf8")) as { paths: Record<string, Record<string, unknown>> };
    const removedPath = "/gists/{gist_id}/star";
    const removed = Object.keys(document.paths[removedPath]!)
      .filter((key) => ["get", "put", "delete"].includes(key))
      .map((m) => `${m.toUpperCase()} ${removedPath}`);
    delete document.paths[removedPath];
    const junit = join(work, "gh.xml");
    const check = await runCli(
      [
        "snapshot",
        file("gh-snapshot.json", JSON.stringify(document)),
        "--project",
        "github",
        "--commit",
        "f00dfeed",
        "--junit",
        junit,
        "--json",
        join(work, "gh-snapshot-answer.json"),
      ],
      ciEnv(),
    );
    expect(check.code).toBe(1);
    const answer = JSON.parse(readFileSync(join(work, "gh-snapshot-answer.json"), "utf8"));
    const missing = answer.verdict.violations
      .filter((v: { rule: string }) => v.rule === "missing-operation")
      .map((v: { location: string }) => v.location.split("#")[0]);
    expect(missing.sort()).toEqual(removed.sort());
    expect(readFileSync(junit, "utf8")).toContain(`missing-operation: ${removed[0]}`);

    const download = await fetch(
      `${server.url}/api/v1/projects/github/contracts/${uploaded.contract.version}/document`,
      { headers: { Authorization: `Bearer ${acmeKey}` } },
    );
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  }, 180_000);

  it("refuses a 30 MB upload over HTTP with 413, and the CLI says why (exit 2)", async () => {
    const big = Buffer.alloc(30 * 1024 * 1024, 0x20);
    big.write('{"openapi":"3.1.0"', 0);
    const before = await api(acmeKey, "GET", "/projects/orders");
    const response = await fetch(`${server.url}/api/v1/projects/orders/snapshots?commit=big`, {
      method: "POST",
      headers: { Authorization: `Bearer ${acmeKey}` },
      body: big,
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    const run = await runCli(["snapshot", file("big.json", big), "--commit", "big2"], ciEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("payload_too_large");
    expect((await api(acmeKey, "GET", "/projects/orders")).body.project).toEqual(before.body.project);
  });

  it("keeps organizations apart: another organization's key sees none of it", async () => {
    const projects = await api(globexKey, "GET", "/projects");
    expect(projects.body.projects).toEqual([]);
    expect((await api(globexKey, "GET", "/projects/orders/snapshots")).status).toBe(404);
    const run = await runCli(["snapshot", file("g.json", JSON.stringify(contract)), "--commit", "g1"], {
      ...ciEnv(),
      ARBITER_TOKEN: globexKey,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("upload a contract first");
  });
});
