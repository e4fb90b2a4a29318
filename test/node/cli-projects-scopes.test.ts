/**
 * The CLI against a real `wrangler dev`: a contract upload with breaking changes says plainly what it breaks and
 * whether it became active, and --fail-on-breaking fails CI on it; a project name one keystroke from an existing
 * one is refused with the closest name unless --create; a login token that lacks a command's scope gets the exact
 * `arbiter login` to run (before sending, and on the server's 403); --server may be left out when logged in to one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainToken } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { runProcess } from "../helpers/run-process";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");
const work = mkdtempSync(join(tmpdir(), "arbiter-cli-projects-"));
let server: WranglerDev;
let writer: string;

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: join(work, "home"), XDG_CONFIG_HOME: join(work, "none"), ...env },
  });
}

function file(name: string, content: unknown): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

function contract(extraParameter?: string): Record<string, unknown> {
  const parameters = extraParameter
    ? [{ name: extraParameter, in: "query", required: true, schema: { type: "string" } }]
    : [];
  return {
    openapi: "3.1.0",
    info: { title: "Shop", version: "1" },
    paths: {
      "/items": {
        get: {
          operationId: "listItems",
          parameters,
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array" } } } } },
        },
      },
    },
  };
}

/** A credentials file as `arbiter login` writes it, holding `token` for the REST API with the `scope` it claims. */
function loggedIn(name: string, token: string, scope: string): Record<string, string> {
  const config = join(work, name);
  mkdirSync(join(config, "arbiter"), { recursive: true, mode: 0o700 });
  const entry = {
    issuer: server.url,
    clientId: "cli",
    tokenEndpoint: `${server.url}/token`,
    tokens: { api: { resource: `${server.url}/api`, accessToken: token, expiresAt: null, scope } },
  };
  writeFileSync(join(config, "arbiter", "credentials.json"), JSON.stringify({ servers: { [server.url]: entry } }), {
    mode: 0o600,
  });
  return { XDG_CONFIG_HOME: config };
}

const ci = (project: string) => ({ ARBITER_URL: server.url, ARBITER_TOKEN: writer, ARBITER_PROJECT: project });

beforeAll(async () => {
  server = await sharedWranglerDev();
  writer = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  const first = await runCli(["contract", file("v1.json", contract())], ci("cliscope-shop"));
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toContain("Arbiter: created the project cliscope-shop with this upload.");
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("arbiter contract with breaking changes", () => {
  it("says how many changes break clients of v1, that v2 is active and why, in version terms; --fail-on-breaking exits 1", async () => {
    const breaking = file("v2.json", contract("tenant"));
    const warned = await runCli(["contract", breaking], ci("cliscope-shop"));
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stdout).toContain(
      "1 breaking change for clients of v1; v2 is active because this organization's policy warns",
    );
    expect(warned.stdout).toContain('v2 requires query parameter "tenant", which v1 does not define');
    expect(warned.stdout).not.toContain("the implementation");
    expect(warned.stdout).not.toContain("REJECTED");
    const failed = await runCli(
      ["contract", file("v3.json", contract("region")), "--fail-on-breaking"],
      ci("cliscope-shop"),
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/--fail-on-breaking: exit 1 because of \d+ breaking changes? for clients of v2\./);
    expect(failed.stdout).toContain('v3 requires query parameter "region", which v2 does not define');
  });
});

describe("a project name close to an existing one", () => {
  it("is refused with the closest name unless --create, and the answer says when it created one", async () => {
    const typo = await runCli(["contract", file("typo.json", contract())], ci("cliscope-shpo"));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      'There is no project "cliscope-shpo"; did you mean "cliscope-shop"? Nothing was stored.',
    );
    expect(typo.stderr).toContain("--create");
    const snapshot = await runCli(["snapshot", file("build.json", contract()), "--commit", "abc"], ci("cliscope-shpo"));
    expect(snapshot.code).toBe(2);
    expect(snapshot.stderr).toContain('did you mean "cliscope-shop"?');
    const created = await runCli(["contract", file("new.json", contract()), "--create"], ci("cliscope-shpo"));
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("Arbiter: created the project cliscope-shpo with this upload.");
    // A name far from every project is a new project, as before.
    const fresh = await runCli(["contract", file("fresh.json", contract())], ci("cliscope-warehouse"));
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain("created the project cliscope-warehouse");
  });
});

describe("a login token without the scope a command needs", () => {
  it("is stopped before sending with the exact arbiter login to run", async () => {
    const reader = await obtainToken(server.url, {
      user: "ana",
      scope: "contracts.read",
      resource: `${server.url}/api`,
    });
    const run = await runCli(
      ["contract", file("v1-again.json", contract()), "--project", "cliscope-shop"],
      loggedIn("reader", reader, "contracts.read offline_access"),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `arbiter contract needs the scope contracts.write, which your login token for ${server.url} does not carry. Run "arbiter login --server ${server.url} --scopes 'contracts.read contracts.write'" and tick it on the consent page.`,
    );
  });

  it("gets the same advice from the server's 403 when the stored scopes were wrong", async () => {
    const reader = await obtainToken(server.url, {
      user: "ana",
      scope: "contracts.read",
      resource: `${server.url}/api`,
    });
    const run = await runCli(
      ["snapshot", file("s.json", contract()), "--project", "cliscope-shop", "--commit", "abc"],
      loggedIn("stale", reader, "contracts.read snapshots.write"),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Arbiter refused the request (403): arbiter snapshot needs the scope snapshots.write");
    expect(run.stderr).toContain(
      `Run "arbiter login --server ${server.url} --scopes 'contracts.read snapshots.write'"`,
    );
  });

  it("--server may be left out when logged in to one server, for check, contract and snapshot", async () => {
    const env = loggedIn("one-server", writer, "contracts.read contracts.write snapshots.write offline_access");
    const check = await runCli(["check", file("draft.json", contract("tenant")), "--project", "cliscope-shop"], env);
    expect(check.stderr).toBe("");
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("Arbiter: cliscope-shop draft");
    const snapshot = await runCli(
      ["snapshot", file("impl.json", contract("region")), "--project", "cliscope-shop", "--commit", "c1"],
      env,
    );
    expect(snapshot.code, snapshot.stderr).toBe(0);
  });
});
