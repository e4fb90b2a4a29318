/**
 * The official MCP conformance suite against one `wrangler dev` of the Worker, with a bearer token like any
 * connected client: the stable line (0.1.16) for 2025-11-25, the pre-release line (0.2.0-alpha.12) at 2025-11-25 and
 * at 2026-07-28 (the two eras served at /mcp), and the pre-release's authorization-server scenarios. Each
 * invocation runs all its scenarios in one process (test/conformance/run-suite.ts).
 *
 * Every scenario and check passes without warnings unless test/conformance/not-applicable.json says why it does not
 * apply (the suite's own fixtures); an entry there that passes fails the test as stale. The named must-pass
 * scenarios have to be in the results, so a scenario that silently stops running is noticed too.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuite, type Check, type SuiteLine, type SuiteRun } from "../conformance/run-suite";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import { freePort, type WranglerDev } from "../helpers/wrangler-dev";
import { approveAuthorization, obtainToken, registerClient } from "../helpers/oauth-http";

interface NotApplicable {
  scenarios: Record<string, string>;
  checks: Record<string, string>;
}
const notApplicable = JSON.parse(
  readFileSync(resolve(import.meta.dirname, "../conformance/not-applicable.json"), "utf8"),
) as NotApplicable;

const SESSION_ERA_MUST_PASS = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "server-sse-multiple-streams",
  "server-sse-polling",
  "dns-rebinding-protection",
];

const RUNS: Array<{ name: string; line: SuiteLine; args: string[]; mustPass: string[] }> = [
  { name: "0.1.16, 2025-11-25", line: "conformance-stable", args: ["--suite", "all"], mustPass: SESSION_ERA_MUST_PASS },
  {
    name: "0.2.0-alpha.12, 2025-11-25",
    line: "conformance-next",
    args: ["--suite", "all", "--spec-version", "2025-11-25"],
    mustPass: [...SESSION_ERA_MUST_PASS, "server-session-lifecycle"],
  },
  {
    name: "0.2.0-alpha.12, 2026-07-28",
    line: "conformance-next",
    args: ["--suite", "all", "--spec-version", "2026-07-28"],
    mustPass: [
      "server-stateless",
      "caching",
      "http-header-validation",
      "http-custom-header-server-validation",
      "sep-2164-resource-not-found",
      "tools-list",
      "resources-list",
      "prompts-list",
      "dns-rebinding-protection",
    ],
  },
];

/** The checks that fail the run: failures and warnings, less the per-check entries of the list. */
function problems(scenario: string, checks: readonly Check[]): string[] {
  return checks
    .filter((check) => check.status === "FAILURE" || check.status === "WARNING")
    .filter((check) => !(`${scenario}:${check.id}` in notApplicable.checks))
    .map((check) => `${scenario}: ${check.status} ${check.id}: ${(check.errorMessage ?? "").slice(0, 300)}`);
}

function verdict(
  run: SuiteRun,
  mustPass: readonly string[],
): { failures: string[]; stale: string[]; missing: string[] } {
  const failures: string[] = [];
  const stale: string[] = [];
  for (const [scenario, checks] of run.scenarios) {
    if (scenario in notApplicable.scenarios) {
      if (checks.length > 0 && checks.every((check) => check.status === "SUCCESS" || check.status === "INFO"))
        stale.push(scenario);
      continue;
    }
    failures.push(...problems(scenario, checks));
  }
  const missing = mustPass.filter((scenario) => !run.scenarios.has(scenario));
  return { failures, stale, missing };
}

let server: WranglerDev;
let token: string;

beforeAll(async () => {
  server = await sharedWranglerDev();
  // Every scope of the catalog's tools, so the scenarios that call tools/list's first tool reach it.
  token = await obtainToken(server.url, {
    user: "ana",
    scope: "orders.read orders.search orders.pii contracts.read audit.read",
    resource: `${server.url}/mcp`,
  });
});

afterAll(async () => {
  await server?.stop();
});

describe("MCP conformance suite", () => {
  for (const suite of RUNS) {
    it(`server scenarios, ${suite.name}`, { timeout: 300_000 }, async () => {
      const run = await runSuite({
        line: suite.line,
        args: ["server", "--url", `${server.url}/mcp`, ...suite.args],
        token,
        origin: server.url,
      });
      console.log(
        `conformance ${suite.name}: ${run.scenarios.size} scenarios in ${(run.durationMs / 1000).toFixed(1)} s`,
      );
      expect(run.scenarios.size, run.output.slice(-2000)).toBeGreaterThan(0);
      const { failures, stale, missing } = verdict(run, suite.mustPass);
      expect(missing, "must-pass scenarios that did not run").toEqual([]);
      expect(failures, "failing or warning checks").toEqual([]);
      expect(stale, "not-applicable entries that pass: remove them from test/conformance/not-applicable.json").toEqual(
        [],
      );
    });
  }

  it("authorization server scenarios (conformance authorization)", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const clientId = await registerClient(server.url, [`http://127.0.0.1:${port}/callback`]);
    let visited: Promise<void> | undefined;
    let printed = "";
    const run = await runSuite({
      line: "conformance-next",
      args: [
        "authorization",
        "--url",
        server.url,
        "--client-id",
        clientId,
        "--resource",
        `${server.url}/mcp`,
        "--port",
        String(port),
      ],
      origin: server.url,
      timeoutMs: 100_000,
      // The scenario prints the authorization URL for a person to open; the "browser" here signs in and approves,
      // and its redirect lands on the suite's callback server.
      onOutput(text) {
        printed += text;
        const url = /(http:\/\/localhost:\d+\/authorize\?\S+)/.exec(printed)?.[1];
        if (url && !visited) {
          visited = (async () => {
            const redirect = await approveAuthorization(server.url, "ana", url);
            if (redirect) await fetch(redirect);
          })();
        }
      },
    });
    await visited;
    console.log(
      `conformance authorization: ${run.scenarios.size} scenarios in ${(run.durationMs / 1000).toFixed(1)} s`,
    );
    const { failures, missing } = verdict(run, ["authorization-server-metadata-endpoint", "authorization-code-grant"]);
    expect(missing, run.output.slice(-2000)).toEqual([]);
    expect(failures).toEqual([]);
  });
});
