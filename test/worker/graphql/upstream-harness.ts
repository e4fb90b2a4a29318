/**
 * A scriptable GraphQL upstream for gateway tests inside workerd, reached through the gateway's injectable
 * fetcher (the pool's global fetch cannot reach test servers). In "ok" mode it is a real GraphQL executor
 * (the demo upstream's resolvers over a separately built schema, so its data is independent), chosen per
 * organization by the request host; other modes answer like broken servers do. Real HTTP servers on
 * loopback are exercised by test/node/graphql-gateway.test.ts and graphql-e2e.test.ts.
 */
import { env as testEnv } from "cloudflare:test";
import { buildSchema } from "graphql";
import { DemoUpstream } from "../../../src/graphql/demo-upstream";
import type { Fetcher } from "../../../src/graphql/types";
import type { AuditRecord } from "../../../src/audit/record";
import type { Env } from "../../../src/env";
import type { Principal } from "../../../src/core/principal";
import type { PipelineDeps } from "../../../src/mcp/pipeline";
import { unlimited } from "../../../src/ratelimit/hook";
import { bundledPolicyFiles } from "../../../src/policy/files";

export type UpstreamMode =
  | "ok"
  | "http-500"
  | "http-401"
  | "malformed"
  | "errors-only"
  | "partial"
  | "leaky-errors"
  | "redirect"
  | "hang"
  | "huge"
  | "network"
  | "wrong-shape"
  | "extra-fields";

/** What the "leaky-errors" upstream's messages carry: its own credential and an API key. */
export const LEAKED_IN_ERRORS = ["acme-upstream-secret-123", "sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0"];

export interface SeenRequest {
  url: string;
  headers: Record<string, string>;
  body: { query: string; operationName: string; variables: Record<string, unknown> };
  /** The request's redirect mode: "manual" means the runtime hands a 3xx back instead of following it. */
  redirect: string;
  aborted: () => boolean;
}

export function scriptedUpstream() {
  const data = new DemoUpstream(buildSchema(bundledPolicyFiles["graphql/schema.graphql"] as string));
  const state = { mode: "ok" as UpstreamMode, seen: [] as SeenRequest[] };
  const fetcher: Fetcher = async (request) => {
    const body = (await request.clone().json()) as SeenRequest["body"];
    state.seen.push({
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body,
      redirect: request.redirect,
      aborted: () => request.signal.aborted,
    });
    const organization = new URL(request.url).hostname.split(".")[1] ?? "unknown";
    switch (state.mode) {
      case "http-500":
        return new Response("Internal error: stack trace at OrdersRepository.find (db.js:42) password=hunter2", {
          status: 500,
        });
      case "http-401":
        return new Response("bad token", { status: 401 });
      case "malformed":
        return new Response('{"data": {"orders": [', { status: 200, headers: { "Content-Type": "application/json" } });
      case "errors-only":
        return Response.json({
          data: null,
          errors: [{ message: "Database unavailable", extensions: { stacktrace: ["at Db.connect (db.js:1)"] } }],
        });
      case "partial":
        return Response.json({
          data: { orderById: null },
          errors: [{ message: "total could not be computed", path: ["orderById", "total"] }],
        });
      case "leaky-errors":
        return Response.json({
          data: { orderById: null },
          errors: [
            {
              message: `permission denied: key ${LEAKED_IN_ERRORS[0]} lacks orders:read (api_key=${LEAKED_IN_ERRORS[1]})`,
              path: ["orderById"],
              extensions: { code: "FORBIDDEN" },
            },
          ],
        });
      case "redirect":
        return new Response(null, { status: 302, headers: { Location: "http://169.254.169.254/latest/meta-data/" } });
      case "hang":
        return new Promise<Response>((_, reject) =>
          request.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
        );
      case "huge":
        return Response.json({ data: { orders: [] }, padding: "x".repeat(10_000) });
      case "network":
        throw new TypeError("Network connection lost.");
      case "wrong-shape":
        return Response.json({
          data: {
            orderById: {
              id: "ord_1002",
              customerName: "Bruno",
              total: "a lot",
              currency: "BRL",
              status: "PENDING",
              createdAt: "x",
              items: [],
            },
          },
        });
      case "extra-fields": {
        const real = (await (
          await data.fetcherFor(organization)(new Request(request.url, { method: "POST", body: JSON.stringify(body) }))
        ).json()) as { data: { orderById: Record<string, unknown> } };
        return Response.json({ data: { orderById: { ...real.data.orderById, internalCost: 12.3 } } });
      }
      default:
        return data.fetcherFor(organization)(new Request(request.url, { method: "POST", body: JSON.stringify(body) }));
    }
  };
  return { state, fetcher };
}

/** The Worker's env with each organization pointed at the scripted upstream and given a credential. */
export function envWithUpstreams(): Env {
  return {
    ...(testEnv as unknown as Env),
    GRAPHQL_UPSTREAM_URL_ACME: "https://orders.acme.example/graphql",
    GRAPHQL_UPSTREAM_TOKEN_ACME: "acme-upstream-secret-123",
    GRAPHQL_UPSTREAM_URL_GLOBEX: "https://orders.globex.example/graphql",
    GRAPHQL_UPSTREAM_TOKEN_GLOBEX: "globex-upstream-secret-456",
  } as Env;
}

export function principal(organizationId: string, scopes: string[], userId = "ana"): Principal {
  return { organizationId, userId, clientId: "test-client", role: "admin", scopes };
}

export function recordingDeps(): PipelineDeps & { records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  return {
    records,
    rateLimiter: unlimited,
    audit: {
      async record(record) {
        records.push(record);
      },
    },
  };
}

export const noSession = {
  async get() {
    return undefined;
  },
  async put() {},
};

export function callContext(who: Principal, env: Env, signal: AbortSignal = new AbortController().signal) {
  return { principal: who, env, session: noSession, signal, async progress() {} };
}
