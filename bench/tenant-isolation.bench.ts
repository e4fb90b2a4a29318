/**
 * Heavy validation must not hold up other organizations (issue 22). Starts wrangler dev, then for each worst case
 * of bench/hostile-cases.ts: acme uploads the hostile contract and its recorded traffic while, at the same time,
 * /health and a tools/call of another organization (globex's whoami, 2026-07-28 stateless lane) are timed every
 * 100 ms. Prints the upload's time and answer, and the medians, p99 and maxima of the concurrent requests (the
 * target: other organizations' p99 within 100 ms). Rerun: npm run bench:tenants (a figure, not a test: the machine is shared, see uptime below).
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { obtainToken } from "../test/helpers/oauth-http";
import { startWranglerDev } from "../test/helpers/wrangler-dev";
import { HOSTILE_CASES, ndjsonOf } from "./hostile-cases";
import { modernRequest } from "../test/helpers/modern-request";

function stats(values: number[]): string {
  if (values.length === 0) return "no samples";
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms (${values.length} samples)`;
}

async function timed(request: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  const response = await request();
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`a concurrent request failed: ${response.status}`);
  return performance.now() - start;
}

const dev = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } });
try {
  const acme = await obtainToken(dev.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${dev.url}/api`,
  });
  const globex = await obtainToken(dev.url, { user: "gus", scope: "orders.read", resource: `${dev.url}/mcp` });
  const whoami = () => modernRequest(dev.url, globex, "tools/call", { name: "whoami", arguments: {} });
  const health = () => fetch(`${dev.url}/health`);
  // Warm both paths so the first samples do not measure start-up.
  await timed(health);
  await timed(whoami);
  console.log(
    `load average at start ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  // The baseline of the same run: the same requests with nothing else going on.
  const idleHealth: number[] = [];
  const idleTool: number[] = [];
  for (let i = 0; i < 10; i++) {
    idleHealth.push(await timed(health));
    idleTool.push(await timed(whoami));
  }
  console.log(`idle baseline: /health ${stats(idleHealth)}; globex tools/call ${stats(idleTool)}`);
  for (const [position, build] of HOSTILE_CASES.entries()) {
    const hostile = build();
    const project = `hostile-${position}`;
    const contract = await fetch(`${dev.url}/api/v1/projects/${project}/contracts?create=true`, {
      method: "POST",
      headers: { Authorization: `Bearer ${acme}`, "Content-Type": "application/json" },
      body: JSON.stringify(hostile.contract),
    });
    if (contract.status !== 201)
      throw new Error(`contract upload ${project}: ${contract.status} ${await contract.text()}`);
    const healthTimes: number[] = [];
    const toolTimes: number[] = [];
    let uploading = true;
    const sample = async (request: () => Promise<Response>, into: number[]) => {
      while (uploading) {
        into.push(await timed(request));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const samplers = [sample(health, healthTimes), sample(whoami, toolTimes)];
    const started = performance.now();
    const upload = await fetch(`${dev.url}/api/v1/projects/${project}/exchanges`, {
      method: "POST",
      headers: { Authorization: `Bearer ${acme}`, "Content-Type": "application/x-ndjson" },
      body: ndjsonOf(hostile.exchanges),
    });
    const uploadMs = performance.now() - started;
    const answer = (await upload.json()) as {
      verdict?: { approved: boolean; totalViolations: number; summary?: Array<{ rule: string; count: number }> };
      error?: { code: string };
    };
    uploading = false;
    await Promise.all(samplers);
    const outcome = answer.verdict
      ? `${answer.verdict.approved ? "approved" : "rejected"}, ${answer.verdict.totalViolations} violations${answer.verdict.summary ? ` (${answer.verdict.summary.map((entry) => `${entry.rule} ${entry.count}`).join(", ")})` : ""}`
      : answer.error?.code;
    console.log(`${hostile.name}: upload ${upload.status} (${outcome}) in ${uploadMs.toFixed(0)} ms`);
    console.log(`  /health during it:             ${stats(healthTimes)}`);
    console.log(`  globex tools/call during it:   ${stats(toolTimes)}`);
  }
  console.log(
    `load average at end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await dev.stop();
}
