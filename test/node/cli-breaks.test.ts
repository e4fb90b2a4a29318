/**
 * "Is this break used?" and accepted breaks end to end with the CLI against a real `wrangler dev`: recorded traffic
 * feeds the usage index, a breaking snapshot is rejected with the evidence in its summary and in every report format,
 * and its summary prints the change's fingerprint; `arbiter breaks accept` accepts it until a time a few seconds ahead; the
 * next snapshot is approved with the acceptance named in the summary and in every report format; once the real
 * clock passes the expiry the same snapshot is rejected again and `arbiter breaks list` says "expired".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainToken } from "../helpers/oauth-http";
import { runProcess } from "../helpers/run-process";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { ordersContract, violatingSnapshot } from "../worker/contracts-api/fixtures";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");
const work = mkdtempSync(join(tmpdir(), "arbiter-breaks-"));
const PROJECT = "cli-breaks";

let server: WranglerDev;
let token: string;

const runCli = (args: string[]) =>
  runProcess(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: work,
      ARBITER_URL: server.url,
      ARBITER_TOKEN: token,
      ARBITER_PROJECT: PROJECT,
    },
  });

const breaking = join(work, "openapi.json");
const report = (name: string) => readFileSync(join(work, name), "utf8");

beforeAll(async () => {
  server = await sharedWranglerDev();
  token = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  const contract = await fetch(`${server.url}/api/v1/projects/${PROJECT}/contracts`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(ordersContract()),
  });
  expect(contract.status).toBe(201);
  writeFileSync(breaking, JSON.stringify(violatingSnapshot(), null, 2));
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("arbiter breaks", () => {
  it("shows a break's usage in every format, accepts it until a time, approves the next verdict naming it, and rejects again after the expiry", async () => {
    const traffic = join(work, "traffic.ndjson");
    const order = { id: "ord_1", total: 12.5 };
    writeFileSync(
      traffic,
      [1, 2, 3]
        .map(() => JSON.stringify({ method: "GET", path: "/orders/ord_1", status: 200, responseBody: order }))
        .join("\n"),
    );
    expect((await runCli(["exchanges", traffic, "--commit", "t1"])).code).toBe(0);

    const evidence = "3 recorded exchanges of GET /orders/{id} in the last 30 days";
    const formats = (prefix: string) =>
      ["json", "markdown", "junit", "sarif", "github"].flatMap((format) => [
        `--out-${format}`,
        join(work, `${prefix}.${format}`),
      ]);
    const rejected = await runCli(["snapshot", breaking, "--commit", "b1", ...formats("rejected")]);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toContain("usage: 3 recorded exchanges in the last 30 days");
    expect(JSON.parse(report("rejected.json")).verdict.violations[0].usage).toEqual({ days: 30, exchanges: 3 });
    expect(report("rejected.markdown")).toContain(evidence.replace("{id}", "\\{id\\}"));
    expect(report("rejected.junit")).toContain(evidence);
    expect(report("rejected.github")).toContain(evidence);
    expect(JSON.parse(report("rejected.sarif")).runs[0].results[0].properties.usage.exchanges).toBe(3);
    const fingerprint = /fingerprint (bc-[0-9a-f]{16})/.exec(rejected.stdout)?.[1];
    expect(fingerprint, rejected.stdout).toBeDefined();

    const expiresAt = new Date(Date.now() + 8000).toISOString();
    const accepted = await runCli([
      "breaks",
      "accept",
      fingerprint!,
      "--reason",
      "getOrder moves to v2",
      "--owner",
      "team-orders",
      "--expires",
      expiresAt,
    ]);
    expect(accepted.stderr).toBe("");
    expect(accepted.code).toBe(0);
    const id = /as (ab-\d+)/.exec(accepted.stdout)?.[1] ?? "(no id in the answer)";
    expect(id, accepted.stdout).toMatch(/^ab-\d+$/);

    const approved = await runCli(["snapshot", breaking, "--commit", "b2", ...formats("verdict")]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(approved.stdout).toContain("1 accepted");
    expect(approved.stdout).toContain(`accepted by team-orders until ${expiresAt}: getOrder moves to v2 (${id})`);
    const json = JSON.parse(report("verdict.json"));
    expect(json.verdict.violations).toContainEqual(
      expect.objectContaining({ severity: "accepted", fingerprint, acceptance: expect.objectContaining({ id }) }),
    );
    // Markdown escapes "-", "(" and ")" in document-derived text.
    expect(report("verdict.markdown")).toContain(`getOrder moves to v2 \\(${id.replace("-", "\\-")}\\)`);
    expect(report("verdict.junit")).toContain(`(${id})`);
    expect(report("verdict.junit")).toContain('failures="0"');
    const sarif = JSON.parse(report("verdict.sarif"));
    expect(sarif.runs[0].results[0].suppressions[0].justification).toContain(id);
    expect(report("verdict.github")).toMatch(new RegExp(`^::notice .*\\(${id}\\)`, "m"));

    const listed = await runCli(["breaks", "list"]);
    expect(listed.stdout).toContain(`${id}  in-force  missing-operation at GET /orders/{id}`);

    await new Promise((done) => setTimeout(done, Math.max(0, Date.parse(expiresAt) - Date.now() + 250)));
    const again = await runCli(["snapshot", breaking, "--commit", "b3"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`fingerprint ${fingerprint}`);
    expect((await runCli(["breaks", "list"])).stdout).toContain(`${id}  expired`);
  }, 120_000);

  it("says what is missing before calling the server", async () => {
    const noReason = await runCli(["breaks", "accept", "bc-0123456789abcdef", "--expires", "2030-01-01"]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("--reason");
    const unknown = await runCli(["breaks", "forget"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Usage: arbiter breaks list");
  });
});
