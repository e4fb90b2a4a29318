/**
 * `arbiter exchanges` against a real `wrangler dev` of this Worker: recorded traffic from a HAR file or NDJSON is
 * checked against the project's contract, and the exit code is what CI fails on (0 approved, 1 rejected on a
 * real payload violation, 2 could not check), with the JUnit report naming the exchange and pointer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { conformingHar, exchangeContract, GOOD_ORDER, har } from "../worker/engine/exchanges/fixtures";
import { obtainToken } from "../helpers/oauth-http";
import { runProcess } from "../helpers/run-process";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");
const work = mkdtempSync(join(tmpdir(), "arbiter-exchanges-"));

let server: WranglerDev;
let token: string;

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
}

function file(name: string, content: string): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

const ciEnv = () => ({ ARBITER_URL: server.url, ARBITER_TOKEN: token, ARBITER_PROJECT: "traffic" });

beforeAll(async () => {
  server = await sharedWranglerDev();
  token = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  const contract = await fetch(`${server.url}/api/v1/projects/traffic/contracts`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(exchangeContract()),
  });
  expect(contract.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("arbiter exchanges against wrangler dev", () => {
  it("exits 0 when the recorded traffic conforms", async () => {
    const run = await runCli(
      ["exchanges", file("ok.har", JSON.stringify(conformingHar())), "--commit", "aaaa111"],
      ciEnv(),
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // Run ids count the organization's runs, and other files on the shared server may have made some first.
    expect(run.stdout).toMatch(
      /Arbiter: traffic recorded traffic run #\d+ \(5 exchanges, commit aaaa111\) against contract v1: APPROVED/,
    );
  });

  it("exits 1 on a real payload violation and names the exchange and pointer in the summary and JUnit", async () => {
    const junit = join(work, "traffic.xml");
    const recording = har([
      { method: "GET", url: "https://api.example.com/v1/orders/ord_1", status: 200, responseBody: GOOD_ORDER },
      {
        method: "GET",
        url: "https://api.example.com/v1/orders/ord_2",
        status: 200,
        responseBody: { ...GOOD_ORDER, total: "12.50" },
      },
    ]);
    const run = await runCli(
      ["exchanges", file("bad.har", JSON.stringify(recording)), "--commit", "bbbb222", "--junit", junit],
      ciEnv(),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("REJECTED");
    expect(run.stdout).toContain("response-invalid  GET /orders/{id}#exchange/1/response/body/total");
    expect(readFileSync(junit, "utf8")).toContain('failures="1"');
  });

  it("reads NDJSON by its extension", async () => {
    const line = JSON.stringify({ method: "GET", path: "/orders/ord_1", status: 500, responseBody: { oops: true } });
    const run = await runCli(["exchanges", file("traffic.ndjson", `${line}\n`)], ciEnv());
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("undocumented-status-code");
  });

  it("exits 2 when it cannot check: a malformed HAR, a bad --contract-version, an unknown project", async () => {
    const malformed = await runCli(
      ["exchanges", file("broken.har", JSON.stringify({ log: { entries: [{ request: {} }] } }))],
      ciEnv(),
    );
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("invalid_exchanges");
    expect(malformed.stderr).toContain("/log/entries/0/response");
    const version = await runCli(
      ["exchanges", file("v.har", JSON.stringify(conformingHar())), "--contract-version", "latest"],
      ciEnv(),
    );
    expect(version.code).toBe(2);
    expect(version.stderr).toContain("--contract-version");
    const unknown = await runCli(
      ["exchanges", file("u.har", JSON.stringify(conformingHar())), "--project", "nothing"],
      ciEnv(),
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown_project");
  });
});

describe("document text the CLI prints (issue 22)", () => {
  const hostilePath = "/x\r::add-mask::secret\n::error file=app.js::forged\u001b[2J\u202Eexe";
  /** No line of CLI output may start a workflow command, and no escape or bidi character may reach a terminal. */
  const expectInert = (text: string) => {
    for (const line of text.split(/\r\n|\r|\n/)) expect(line.trimStart()).not.toMatch(/^(::|##\[)/);
    expect(text).not.toMatch(/[\u001b\u202E]/);
  };

  it("neutralises a document's paths in the snapshot summary on stdout", async () => {
    const contract = {
      openapi: "3.1.0",
      info: { title: "hostile", version: "1" },
      paths: { [hostilePath]: { get: { responses: { "200": { description: "ok" } } } } },
    };
    const uploaded = await fetch(`${server.url}/api/v1/projects/hostile-out/contracts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(contract),
    });
    expect(uploaded.status).toBe(201);
    const snapshot = { openapi: "3.1.0", info: { title: "impl", version: "1" }, paths: {} };
    const run = await runCli(
      ["snapshot", file("impl.json", JSON.stringify(snapshot)), "--commit", "bbbb222", "--project", "hostile-out"],
      ciEnv(),
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("::add-mask::secret");
    expectInert(run.stdout);
  });

  it("neutralises the 422 problem listing on stderr", async () => {
    const contract = {
      openapi: "3.1.0",
      info: { title: "hostile", version: "1" },
      paths: {
        [hostilePath]: {
          get: {
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { type: "string", pattern: "(?=x)" } } },
              },
            },
          },
        },
      },
    };
    const run = await runCli(
      ["contract", file("hostile.json", JSON.stringify(contract)), "--project", "hostile-in"],
      ciEnv(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("invalid_document");
    expect(run.stderr).toContain("lookahead");
    expectInert(run.stderr);
  });
});
