/**
 * Node-side support for the order-data tests: a policies/ folder read from disk into the same map the Worker
 * bundles, a real GraphQL upstream on loopback, wrangler dev of this Worker, and the OAuth dance over HTTP.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { buildSchema, graphql } from "graphql";

export function readPolicyFolder(root: string): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const key = relative(root, path).split(sep).join("/");
        const text = readFileSync(path, "utf8");
        if (name.endsWith(".json")) files[key] = JSON.parse(text);
        else if (name.endsWith(".graphql")) files[key] = text;
      }
    }
  };
  walk(root);
  return files;
}

// ---------------------------------------------------------------------------------------------------------
// A real GraphQL upstream on loopback (node:http + graphql-js over policies/graphql/schema.graphql), with
// scripted misbehaviour chosen by the URL path (/slow/graphql, /500/graphql, ...) or by the order id asked
// for (ord_5000 slow, ord_5001 500, ord_5002 malformed, ord_5003 resolver error -> partial data, ord_5004 a 302
// to `redirectTo`).


export const REMOTE_ORDERS = [
  { id: "ord_7001", customerName: "Remote Rita", total: 42.5, currency: "EUR", status: "PAID", createdAt: "2025-01-02T00:00:00.000Z", items: [{ sku: "R-1", description: "Remote item", quantity: 1, unitPrice: 42.5 }] },
  { id: "ord_7002", customerName: "Remote Raul", total: 10, currency: "EUR", status: "PENDING", createdAt: "2025-01-01T00:00:00.000Z", items: [{ sku: "R-2", description: "Other item", quantity: 2, unitPrice: 5 }] },
];

export interface SeenUpstreamRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: { query?: string; operationName?: string; variables?: Record<string, unknown> };
}

export interface LoopbackUpstream {
  url(path?: string): string;
  requests: SeenUpstreamRequest[];
  /** Requests whose connection closed before the server answered (the client gave up). */
  closedEarly: SeenUpstreamRequest[];
  waitForEarlyClose(count: number, withinMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const SLOW_ANSWER_MS = 20_000;

export async function startLoopbackUpstream(options: { redirectTo?: string } = {}): Promise<LoopbackUpstream> {
  const schema = buildSchema(readFileSync(join(process.cwd(), "policies/graphql/schema.graphql"), "utf8"));
  const root = {
    orders: ({ status, limit }: { status?: string; limit?: number }) => REMOTE_ORDERS.filter((o) => !status || o.status === status).slice(0, limit ?? 20),
    orderById: ({ id }: { id: string }) => {
      if (id === "ord_5003") throw new Error("inventory service down");
      return REMOTE_ORDERS.find((o) => o.id === id) ?? null;
    },
  };
  const requests: SeenUpstreamRequest[] = [];
  const closedEarly: SeenUpstreamRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      let body: SeenUpstreamRequest["body"] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // recorded as an empty body
      }
      const seen: SeenUpstreamRequest = { path: req.url ?? "", headers: req.headers, body };
      requests.push(seen);
      const byPath = (req.url ?? "").split("/")[1];
      const id = body.variables?.id;
      const mode = byPath && byPath !== "graphql" ? byPath : id === "ord_5000" ? "slow" : id === "ord_5001" ? "500" : id === "ord_5002" ? "malformed" : id === "ord_5004" ? "redirect" : "normal";
      res.on("close", () => {
        if (!res.writableFinished) closedEarly.push(seen);
      });
      if (mode === "slow") {
        const timer = setTimeout(() => res.writableEnded || res.end(JSON.stringify({ data: { orderById: null } })), SLOW_ANSWER_MS);
        timers.add(timer);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      if (mode === "500") {
        res.writeHead(500, { "Content-Type": "text/plain" }).end("Internal error at /srv/orders/db.js:42 password=hunter2");
        return;
      }
      if (mode === "redirect") {
        res.writeHead(302, { Location: options.redirectTo ?? "http://127.0.0.1:9/graphql" }).end();
        return;
      }
      if (mode === "malformed") {
        res.writeHead(200, { "Content-Type": "application/json" }).end('{"data": {"orders": [');
        return;
      }
      if (mode === "huge") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write('{"data":{"orders":[]},"padding":"');
        const chunk = "x".repeat(64 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 64 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          if (!res.destroyed) res.end('"}');
        };
        pump();
        return;
      }
      const result = await graphql({ schema, source: body.query ?? "", rootValue: root, variableValues: body.variables ?? {}, operationName: body.operationName });
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = "/graphql") => `http://127.0.0.1:${port}${path}`,
    requests,
    closedEarly,
    async waitForEarlyClose(count, withinMs) {
      const deadline = Date.now() + withinMs;
      while (closedEarly.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      return closedEarly.length >= count;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server that answers every request with a GraphQL order and counts the requests it got. */
export async function startCountingServer(): Promise<{ url: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ data: { orderById: REMOTE_ORDERS[0] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    hits: () => hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// wrangler dev of this Worker, and the OAuth dance over HTTP (mirrors test/worker/helpers.ts).

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface WranglerDev {
  base: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startWranglerDev(vars: Record<string, string>): Promise<WranglerDev> {
  const port = await freePort();
  const inspector = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const persist = mkdtempSync(join(tmpdir(), "arbiter-e2e-"));
  const args = ["wrangler", "dev", "--port", String(port), "--ip", "127.0.0.1", "--inspector-port", String(inspector), "--persist-to", persist, "--show-interactive-dev-session=false"];
  for (const [key, value] of Object.entries({ ARBITER_DEV_SIGN_IN: "true", PUBLIC_URL: base, ...vars })) args.push("--var", `${key}:${value}`);
  let log = "";
  const child: ChildProcess = spawn("npx", args, {
    cwd: process.cwd(),
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
    rmSync(persist, { recursive: true, force: true });
  };
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/health`)).ok) return { base, output: () => log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  await stop();
  throw new Error(`wrangler dev did not start:\n${log.slice(-3000)}`);
}

class Cookies {
  private jar = new Map<string, string>();
  store(response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const index = pair!.indexOf("=");
      this.jar.set(pair!.slice(0, index).trim(), pair!.slice(index + 1).trim());
    }
  }
  header() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** Register a public client, dev sign-in as `user`, approve `scope` on the consent page, exchange the code. */
export async function obtainAccessToken(base: string, user: string, scope: string, resource = `${base}/mcp`): Promise<string> {
  const redirect = "https://client.example/callback";
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "E2E client", redirect_uris: [redirect], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] }),
  });
  if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${await registered.text()}`);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const cookies = new Cookies();
  const browser = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Cookie", cookies.header());
    const response = await fetch(url.startsWith("http") ? url : `${base}${url}`, { ...init, headers, redirect: "manual" });
    cookies.store(response);
    return response;
  };
  await browser("/signin/dev", { method: "POST", body: new URLSearchParams({ user, return: "/" }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base } });
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "s", resource, scope });
  const page = await browser(`/authorize?${query}`);
  let location = page.headers.get("location");
  if (page.status === 200) {
    const html = await page.text();
    const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1]?.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)));
    if (!handle) throw new Error("no consent handle");
    const form = new URLSearchParams({ handle, decision: "approve" });
    for (const granted of scope.split(" ")) form.append("scope", granted);
    const approved = await browser("/authorize", { method: "POST", body: form, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base } });
    location = approved.headers.get("location");
  }
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (!code) throw new Error(`no authorization code (redirect ${location})`);
  const token = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: clientId, code_verifier: verifier, resource }),
  });
  if (token.status !== 200) throw new Error(`token: ${token.status} ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
