/**
 * Issue "the spec-driven loop without waiting for CI", end to end over one `wrangler dev`: an agent (a real MCP
 * SDK client) edits a contract and sees what it breaks, uploads it, checks a draft of its implementation, fixes
 * it, checks again; CI (bin/arbiter.mjs) then uploads the snapshot and it is approved, and the agent's
 * check_api_conformance agrees. The CLI's check and diff write SARIF, JUnit and GitHub Actions reports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "../helpers/oauth-http";
import { runProcess } from "../helpers/run-process";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");
const work = mkdtempSync(join(tmpdir(), "arbiter-loop-"));

const order = {
  type: "object",
  required: ["id", "total"],
  properties: { id: { type: "string" }, total: { type: "number" } },
};
const v1 = {
  openapi: "3.1.0",
  info: { title: "Shop", version: "1.0.0" },
  paths: {
    "/orders/{id}": {
      get: {
        operationId: "getOrder",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: order } } } },
      },
    },
  },
};
/** The agent's contract edit: a new operation, and `total` renamed to `amount` (which breaks v1's clients). */
const v2 = structuredClone(v1) as any;
v2.paths["/orders/{id}"].get.responses["200"].content["application/json"].schema = {
  type: "object",
  required: ["id", "amount"],
  properties: { id: { type: "string" }, amount: { type: "number" } },
};
v2.paths["/orders"] = {
  get: {
    operationId: "listOrders",
    responses: {
      "200": {
        description: "ok",
        content: { "application/json": { schema: { type: "array", items: { type: "string" } } } },
      },
    },
  },
};
/** The first local build: still returns `total`. */
const firstBuild = structuredClone(v2);
firstBuild.paths["/orders/{id}"].get.responses["200"].content["application/json"].schema = order;

let server: WranglerDev;
let ci: string;
let agent: Client;

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: work,
      XDG_CONFIG_HOME: work,
      ARBITER_URL: server.url,
      ARBITER_TOKEN: ci,
      ARBITER_PROJECT: "shop",
    },
  });
}

function file(name: string, value: unknown): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

async function tool(name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await agent.callTool({ name, arguments: args })) as any;
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

beforeAll(async () => {
  server = await sharedWranglerDev();
  ci = await obtainToken(server.url, {
    user: "dev",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  const mcp = await obtainToken(server.url, { user: "dev", scope: "contracts.read", resource: `${server.url}/mcp` });
  const upload = await runCli(["contract", file("v1.json", v1)]);
  expect(upload.code, upload.stderr).toBe(0);
  agent = new Client({ name: "spec-loop-agent", version: "1.0.0" });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${mcp}` } },
    }),
  );
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("the spec-driven loop", () => {
  it("an agent sees what its contract edit breaks, checks drafts until they pass, and CI's snapshot is approved", async () => {
    const impact = await tool("compare_contract_versions", { project: "shop", document: JSON.stringify(v2) });
    expect(impact.breakingChanges).toBeGreaterThan(0);
    expect(impact.violations.map((v: any) => v.rule)).toContain("response-required-property");
    expect(impact.violations.find((v: any) => v.rule === "undocumented-operation")).toMatchObject({
      severity: "info",
      location: "GET /orders",
    });

    const uploaded = await runCli(["contract", file("v2.json", v2), "--label", "amount"]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(uploaded.stdout).toMatch(
      /\d+ breaking changes? for clients of v1; v2 is active because this organization's policy warns/,
    );

    const first = await tool("check_api_draft", { project: "shop", document: JSON.stringify(firstBuild) });
    expect(first).toMatchObject({ source: "draft", approved: false, contract: { version: 2 } });
    const fixed = await tool("check_api_draft", { project: "shop", document: JSON.stringify(v2) });
    expect(fixed.approved).toBe(true);

    const snapshot = await runCli(["snapshot", file("build.json", v2), "--commit", "c0ffee1"]);
    expect(snapshot.code, snapshot.stderr).toBe(0);
    const verdict = await tool("check_api_conformance", { project: "shop" });
    expect(verdict).toMatchObject({ approved: true, source: "stored", snapshot: { commit: "c0ffee1" } });
  });

  it("arbiter check exits 1 on a breaking draft and writes SARIF, JUnit and workflow commands in one run", async () => {
    const sarifPath = join(work, "draft.sarif");
    const junitPath = join(work, "draft.xml");
    const run = await runCli([
      "check",
      file("first-build.json", firstBuild),
      "--format",
      "github",
      "--out-sarif",
      sarifPath,
      "--out-junit",
      junitPath,
      "--artifact",
      "api/openapi.json",
    ]);
    expect(run.code, run.stderr).toBe(1);
    // The annotation sits on the violation's line in the checked file (the same line the SARIF result carries).
    expect(run.stdout.split("\n")[0]).toMatch(
      /^::error file=api\/openapi\.json,line=\d+,col=\d+,title=response-required-property at GET \/orders\/\{id\}/,
    );
    const sarif = JSON.parse(readFileSync(sarifPath, "utf8"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe("api/openapi.json");
    const line = Number(/line=(\d+)/.exec(run.stdout)![1]);
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.region.startLine).toBe(line);
    const xml = readFileSync(junitPath, "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(
      Number(new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml).testsuites.failures),
    ).toBeGreaterThan(0);
    const snapshots = await (
      await fetch(`${server.url}/api/v1/projects/shop/snapshots`, { headers: { Authorization: `Bearer ${ci}` } })
    ).json();
    expect(snapshots.snapshots).toHaveLength(1);
  });

  it("arbiter diff exits 1 for a breaking change and 0 for a compatible one", async () => {
    const breaking = await runCli(["diff", "--from", "2", "--to", "1"]);
    expect(breaking.code, breaking.stderr).toBe(1);
    expect(breaking.stdout).toMatch(/for clients of v2: \d+ breaking changes?/);
    const compatible = await runCli(["diff", file("v2-again.json", { ...v2, info: { ...v2.info, version: "2.0.1" } })]);
    expect(compatible.code, compatible.stderr).toBe(0);
    const bad = await runCli(["diff"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Compare either an edited contract file");
  });
});
