/**
 * Upstream text never reaches the client, and redirects are never followed: the governed execution behind the
 * order tools (runGovernedOperation: what becomes the tool's structuredContent, or the GatewayFailure whose message
 * becomes its text) against REAL HTTP servers on loopback (node:http, Node's fetch). The tool pipeline around it
 * is covered in the pool (test/worker/graphql/gateway.test.ts), which cannot open sockets. An upstream answering errors with no data, partial data with errors, and 4xx with GraphQL errors,
 * whose messages carry secrets: the tool result (text, structuredContent, _meta) holds the failed paths and fixed
 * messages per error class only; the Worker's log line holds each error's class and path, never the upstream's text. A 302 to a second server is an upstream-error and the second server is never contacted.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { loadGraphqlCatalog } from "../../src/graphql/operation-allowlist";
import { GatewayFailure } from "../../src/graphql/errors";
import { runGovernedOperation } from "../../src/graphql/run-operation";
import type { WorkerEnv } from "../../src/graphql/types";
import { readPolicyFolder } from "./graphql-support";

/** What the upstream's messages carry: a database URL with a password, an API key, and the credential it was sent. */
const DB_PASSWORD = "s3cr3t-db-pw";
const API_KEY = "sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const CREDENTIAL = "node-upstream-credential-42";
const LEAKY = `permission denied for postgres://orders:${DB_PASSWORD}@db.internal/orders api_key=${API_KEY} (you sent ${CREDENTIAL})`;
const SECRETS = [DB_PASSWORD, API_KEY, CREDENTIAL, "db.internal", "permission denied"];

interface Started {
  server: Server;
  url: (path: string) => string;
  hits: string[];
}

async function start(
  handler: (path: string, respond: (status: number, body: unknown, headers?: Record<string, string>) => void) => void,
): Promise<Started> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits.push(req.url ?? "");
      handler(req.url ?? "", (status, body, headers = {}) => {
        res
          .writeHead(status, { "Content-Type": "application/json", ...headers })
          .end(typeof body === "string" ? body : JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: (path) => `http://127.0.0.1:${port}${path}`, hits };
}

async function stop(started: Started): Promise<void> {
  started.server.closeAllConnections();
  await new Promise<void>((resolve) => started.server.close(() => resolve()));
}

let upstream: Started;
let target: Started;

beforeAll(async () => {
  target = await start((_path, respond) =>
    respond(200, {
      data: {
        orderById: {
          id: "ord_9",
          customerName: "Target",
          total: 1,
          currency: "EUR",
          status: "PAID",
          createdAt: "x",
          items: [],
        },
      },
    }),
  );
  upstream = await start((path, respond) => {
    switch (path) {
      case "/no-data/graphql":
        return respond(200, {
          data: null,
          errors: [{ message: LEAKY, extensions: { code: "FORBIDDEN", stacktrace: [`at Db (${DB_PASSWORD})`] } }],
        });
      case "/partial/graphql":
        return respond(200, {
          data: { orderById: null },
          errors: [
            { message: LEAKY, path: ["orderById"], extensions: { code: "NOT_FOUND" } },
            {
              message: `${"very long ".repeat(100)}${API_KEY}`,
              path: ["orderById", `free text ${API_KEY}`],
              extensions: { code: `X_${API_KEY}` },
            },
          ],
        });
      case "/refused/graphql":
        return respond(400, {
          errors: [
            {
              message: `Cannot query field "secretColumn" on type "Order". ${LEAKY}`,
              extensions: { code: "GRAPHQL_VALIDATION_FAILED" },
            },
          ],
        });
      case "/forbidden/graphql":
        return respond(403, { errors: [{ message: LEAKY }] });
      case "/redirect/graphql":
        return respond(302, "", { Location: target.url("/graphql") });
      default:
        return respond(404, {});
    }
  });
});

afterAll(async () => {
  await stop(upstream);
  await stop(target);
});

afterEach(() => {
  vi.restoreAllMocks();
});

const catalog = loadGraphqlCatalog(readPolicyFolder("policies"));
const getById = catalog.operations.find((operation) => operation.name === "GetOrderById")!;

/** One call as the orders_get_by_id tool makes it, with everything logged meanwhile. */
async function callGetById(path: string) {
  const env = { GRAPHQL_UPSTREAM_URL_ACME: upstream.url(path), GRAPHQL_UPSTREAM_TOKEN_ACME: CREDENTIAL } as WorkerEnv;
  const lines: string[] = [];
  const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  vi.spyOn(console, "warn").mockImplementation(capture);
  vi.spyOn(console, "error").mockImplementation(capture);
  vi.spyOn(console, "log").mockImplementation(capture);
  let structuredContent: Record<string, unknown> | undefined;
  let meta: Record<string, unknown> | undefined;
  let failure: GatewayFailure | undefined;
  try {
    const result = await runGovernedOperation(
      catalog,
      getById,
      { id: "ord_1002" },
      { principal: { organizationId: "acme", scopes: ["orders.read"] }, env },
      { cache: null },
    );
    structuredContent = result.structuredContent;
    meta = result.meta;
  } catch (error) {
    if (!(error instanceof GatewayFailure)) throw error;
    failure = error;
  } finally {
    vi.restoreAllMocks();
  }
  // Everything of the answer that the tool pipeline turns into its result (text, structuredContent, _meta).
  const text = JSON.stringify({ structuredContent, meta, message: failure?.message, failureMeta: failure?.details });
  return {
    structuredContent,
    meta,
    failure,
    text,
    log: lines.join("\n"),
    gatewayLine: lines.find((line) => line.includes("graphql upstream")),
  };
}

function expectNoSecret(serialised: string): void {
  for (const secret of SECRETS) expect(serialised).not.toContain(secret);
}

/** The gateway's log line: each upstream error's class and path. */
function loggedUpstreamErrors(line: string | undefined): string[] {
  expect(line).toBeDefined();
  const errors = (JSON.parse(line!) as { upstreamErrors?: string[] }).upstreamErrors;
  expect(errors).toBeDefined();
  return errors!;
}

describe("upstream error text", () => {
  it("errors with no data: a fixed message per class in the result, the class and path in the log, no upstream text anywhere", async () => {
    const { failure, text, gatewayLine } = await callGetById("/no-data/graphql");
    expect(failure?.outcome).toBe("upstream-error");
    expect(failure?.message).toBe(
      "The order API reported errors and no data: access denied. Retry later; if it keeps failing, tell the operator.",
    );
    expectNoSecret(text);
    expect(text).not.toContain("stacktrace");
    expect(loggedUpstreamErrors(gatewayLine)).toEqual(["FORBIDDEN"]);
    expectNoSecret(gatewayLine!);
  });

  it("partial data: structuredContent.errors holds paths and class messages; free-text paths and unknown codes are dropped, in the log too", async () => {
    const { structuredContent, meta, text, gatewayLine } = await callGetById("/partial/graphql");
    expect(structuredContent).toEqual({
      orderById: null,
      errors: [{ message: "not found", path: ["orderById"] }, { message: "the order API reported an error" }],
    });
    expect(meta?.partial).toBe(true);
    expectNoSecret(text);
    expect(loggedUpstreamErrors(gatewayLine)).toEqual(["NOT_FOUND at orderById", "unclassified"]);
    expectNoSecret(gatewayLine!);
    expect(gatewayLine).not.toContain("very long");
  });

  it("4xx with GraphQL errors: 400 names the class, 403 keeps its status message; neither shows the upstream text", async () => {
    const refused = await callGetById("/refused/graphql");
    expect(refused.failure?.message).toMatch(
      /^The order API refused the operation \(HTTP 400\): the operation was refused \(the upstream schema may not match policies\/graphql\/schema\.graphql\)\. /,
    );
    expectNoSecret(refused.text);
    expect(refused.text).not.toContain("secretColumn");
    expect(loggedUpstreamErrors(refused.gatewayLine)).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
    expect(refused.gatewayLine).not.toContain("secretColumn");
    expectNoSecret(refused.gatewayLine!);

    const forbidden = await callGetById("/forbidden/graphql");
    expect(forbidden.failure?.message).toMatch(/^The order API refused Arbiter's credentials \(HTTP 403\)\./);
    expectNoSecret(forbidden.text);
    expectNoSecret(forbidden.log);
  });
});

describe("redirects", () => {
  it("a 302 to another server is an upstream-error with a safe message, and the target is never contacted", async () => {
    const before = target.hits.length;
    const { failure, text } = await callGetById("/redirect/graphql");
    expect(failure?.outcome).toBe("upstream-error");
    expect(failure?.message).toMatch(
      /^The order API answered with a redirect \(HTTP 302\), which Arbiter does not follow\. /,
    );
    expect(text).not.toContain(target.url("/graphql"));
    expect(upstream.hits.at(-1)).toBe("/redirect/graphql");
    expect(target.hits.length).toBe(before);
    // The target is a working server: contacting it would have answered.
    expect((await fetch(target.url("/graphql"), { method: "POST" })).status).toBe(200);
  });
});
