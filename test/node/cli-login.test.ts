/**
 * `arbiter login`, `arbiter token` and `arbiter logout` end to end: bin/arbiter.mjs as a child process with its
 * own HOME and XDG_CONFIG_HOME against a real `wrangler dev` of this Worker with the development sign-in, the
 * browser step done by a real headless Chromium opening the URL the CLI printed (sign in, then Allow or Deny).
 * Checked: the OAuth request (PKCE S256, loopback redirect on a random port, REST resource, offline_access),
 * the credentials file (0600 in a 0700 directory), the token on /api/v1, renewal of an expired token, reuse of
 * the registered client on another port (RFC 8252 section 7.3), revocation on logout, and the failures a person
 * meets (consent denied, state mismatch, no browser within the time, server unreachable).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import { freePort, type WranglerDev } from "../helpers/wrangler-dev";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");
const SYSTEM_NODE = "/usr/bin/node";
const home = mkdtempSync(join(tmpdir(), "arbiter-login-"));

let server: WranglerDev;
let browser: Browser;

interface StoredTokens {
  resource: string;
  accessToken: string;
  refreshToken?: string;
  expiresAt: string | null;
  scope: string;
}
interface Credentials {
  servers: Record<
    string,
    {
      issuer: string;
      clientId: string;
      tokenEndpoint: string;
      revocationEndpoint?: string;
      tokens: Partial<Record<"api" | "chat" | "mcp", StoredTokens>>;
    }
  >;
}

/** A config directory of its own per scenario, so one scenario's file never hides another's. */
function configDir(name: string): string {
  return join(home, name, "config");
}
const credentialsPath = (config: string) => join(config, "arbiter", "credentials.json");
const readCredentials = (config: string): Credentials =>
  JSON.parse(readFileSync(credentialsPath(config), "utf8")) as Credentials;

interface Running {
  /** The authorization URL the CLI printed, once it has. */
  url: Promise<URL>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startCli(
  args: string[],
  config: string,
  extraEnv: Record<string, string> = {},
  node = process.execPath,
): Running {
  const child = spawn(node, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: join(home, "home"), XDG_CONFIG_HOME: config, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let announce: (url: URL) => void;
  const url = new Promise<URL>((found) => (announce = found));
  child.stdout.on("data", (chunk) => (stdout += String(chunk)));
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
    const printed = /^ {2}(http\S+\/authorize\?\S+)$/m.exec(stderr)?.[1];
    if (printed) announce(new URL(printed));
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((finish, failed) => {
    child.once("error", failed);
    child.once("close", (code) => finish({ code, stdout, stderr }));
  });
  const printedOrExited = Promise.race([
    url,
    done.then((r) => Promise.reject(new Error(`the CLI exited (${r.code}) without printing a URL:\n${r.stderr}`))),
  ]);
  printedOrExited.catch(() => undefined); // only a scenario that awaits the URL cares
  return { url: printedOrExited, done };
}

function runCli(args: string[], config: string, extraEnv: Record<string, string> = {}) {
  return startCli(args, config, extraEnv).done;
}

/** A person in the browser: opens the printed URL, signs in as `user`, then allows or denies. Returns the page text the CLI showed. */
async function answerInBrowser(url: URL, user: RegExp, decision: "Allow" | "Deny"): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url.href);
    await page.getByRole("radio", { name: user }).check();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: /Allow Arbiter CLI to use Arbiter/ }).waitFor({ state: "visible" });
    // Sensitive scopes the CLI asks for (contracts.write, snapshots.write) are never pre-ticked: the user ticks them.
    for (const box of await page.locator("input[name=scope][data-requested]").all()) await box.check();
    await page.getByRole("button", { name: decision }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText (rendered text), not the DOM property
    return await page.locator("body").innerText();
  } finally {
    await context.close();
  }
}

async function login(config: string, user: RegExp, extraArgs: string[] = [], node = process.execPath) {
  const cli = startCli(["login", "--server", server.url, "--no-browser", ...extraArgs], config, {}, node);
  const url = await cli.url;
  const page = await answerInBrowser(url, user, "Allow");
  return { url, page, ...(await cli.done) };
}

async function whoami(token: string) {
  const response = await fetch(`${server.url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    body: (await response.json().catch(() => undefined)) as { userId: string; scopes: string[] } | undefined,
  };
}

const mode = (path: string) => statSync(path).mode & 0o777;

beforeAll(async () => {
  [server, browser] = await Promise.all([sharedWranglerDev(), launchBrowser()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("arbiter login / token / logout against wrangler dev", () => {
  const config = configDir("main");
  /** The client registered itself with the first login's redirect URI. */
  let registeredRedirectUri = "";

  it("logs in through the browser and stores a REST token only the user can read", async () => {
    const result = await login(config, /Ana Admin/);
    expect(result.stderr).not.toContain("could not verify");
    expect(result.code, result.stderr).toBe(0);
    expect(result.page).toContain("You can close this tab");

    const query = result.url.searchParams;
    expect(result.url.origin + result.url.pathname).toBe(`${server.url}/authorize`);
    expect(query.get("code_challenge_method")).toBe("S256");
    expect(query.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get("resource")).toBe(`${server.url}/api`);
    expect(query.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    registeredRedirectUri = query.get("redirect_uri")!;
    expect(query.get("scope")!.split(" ").sort()).toEqual([
      "contracts.read",
      "contracts.write",
      "offline_access",
      "snapshots.write",
    ]);

    const file = credentialsPath(config);
    expect(mode(file)).toBe(0o600);
    expect(mode(join(config, "arbiter"))).toBe(0o700);
    const stored = readCredentials(config).servers[server.url]!;
    expect(stored.clientId).toBe(query.get("client_id"));
    expect(stored.revocationEndpoint).toBe(`${server.url}/oauth/token`);
    const api = stored.tokens.api!;
    expect(api.resource).toBe(`${server.url}/api`);
    expect(api.refreshToken).toBeTruthy();
    expect(Date.parse(api.expiresAt!)).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(result.stdout).toContain(`Logged in to ${server.url}: REST API token with scopes`);
    // The token is for the REST API and is the admin's.
    const me = await whoami(api.accessToken);
    expect(me.status).toBe(200);
    expect(me.body!.userId).toBe("ana");
    expect([...me.body!.scopes].sort()).toEqual([
      "contracts.read",
      "contracts.write",
      "offline_access",
      "snapshots.write",
    ]);
    // Never on the terminal.
    expect(`${result.stdout}${result.stderr}`).not.toContain(api.accessToken);
    expect(`${result.stdout}${result.stderr}`).not.toContain(api.refreshToken!);
  });

  it("arbiter token prints the stored token, and the upload commands use it without --token", async () => {
    const stored = readCredentials(config).servers[server.url]!.tokens.api!;
    const printed = await runCli(["token"], config);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout.trim()).toBe(stored.accessToken);

    const document = join(home, "orders.json");
    writeFileSync(
      document,
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "Orders", version: "1" },
        paths: { "/orders": { get: { operationId: "listOrders", responses: { "200": { description: "ok" } } } } },
      }),
    );
    const uploaded = await runCli(["contract", document, "--project", "cli-login", "--url", server.url], config);
    expect(uploaded.stderr).not.toContain("No credentials");
    expect(uploaded.stdout).toContain("Arbiter: cli-login contract v1");
  });

  it("renews an expired token with the refresh token", async () => {
    const before = readCredentials(config);
    const old = before.servers[server.url]!.tokens.api!;
    before.servers[server.url]!.tokens.api!.expiresAt = new Date(Date.now() - 1_000).toISOString();
    writeFileSync(credentialsPath(config), JSON.stringify(before), { mode: 0o600 });

    const printed = await runCli(["token"], config);
    expect(printed.code, printed.stderr).toBe(0);
    const renewed = readCredentials(config).servers[server.url]!.tokens.api!;
    expect(printed.stdout.trim()).toBe(renewed.accessToken);
    expect(renewed.accessToken).not.toBe(old.accessToken);
    expect(renewed.refreshToken).toBeTruthy();
    expect(Date.parse(renewed.expiresAt!)).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(mode(credentialsPath(config))).toBe(0o600);
    expect((await whoami(renewed.accessToken)).status).toBe(200);
    // A current token is printed as stored, without another refresh.
    expect((await runCli(["token"], config)).stdout.trim()).toBe(renewed.accessToken);
  });

  it("logs in again with the registered client on another loopback port (RFC 8252 section 7.3)", async () => {
    const first = readCredentials(config).servers[server.url]!;
    const registeredPort = new URL(registeredRedirectUri).port;
    const again = await login(config, /Ana Admin/);
    expect(again.code, again.stderr).toBe(0);
    expect(again.url.searchParams.get("client_id")).toBe(first.clientId);
    expect(new URL(again.url.searchParams.get("redirect_uri")!).port).not.toBe(registeredPort);
    expect(readCredentials(config).servers[server.url]!.clientId).toBe(first.clientId);
  });

  it("registers a new client when the server no longer knows the stored one", async () => {
    const stored = readCredentials(config);
    stored.servers[server.url]!.clientId = "forgotten-client-id";
    writeFileSync(credentialsPath(config), JSON.stringify(stored), { mode: 0o600 });
    const again = await login(config, /Ana Admin/);
    expect(again.code, again.stderr).toBe(0);
    const clientId = readCredentials(config).servers[server.url]!.clientId;
    expect(clientId).not.toBe("forgotten-client-id");
    expect(again.url.searchParams.get("client_id")).toBe(clientId);
  });

  it("--scope asks for those scopes (plus offline_access) instead", async () => {
    const result = await login(config, /Ana Admin/, ["--scope", "orders.read orders.search"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.url.searchParams.get("scope")).toBe("orders.read orders.search offline_access");
    const token = (await runCli(["token"], config)).stdout.trim();
    const chat = await fetch(`${server.url}/chat`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: "me traga pedidos pagos" }),
    });
    expect(chat.status).toBe(200);
    expect(JSON.stringify(await chat.json())).toContain("orders_search");
  });

  it("--resource chat keeps a /chat token beside the REST one, which keeps working for uploads", async () => {
    const dir = configDir("chat-beside-rest");
    expect((await login(dir, /Ana Admin/)).code).toBe(0);
    const rest = readCredentials(dir).servers[server.url]!.tokens.api!.accessToken;
    const chat = await login(dir, /Ana Admin/, ["--resource", "chat"]);
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.url.searchParams.get("scope")).toBe("orders.read orders.search offline_access");
    expect(chat.url.searchParams.get("resource")).toBe(`${server.url}/api`);
    const tokens = readCredentials(dir).servers[server.url]!.tokens;
    expect(tokens.api!.accessToken, "the REST token is not replaced").toBe(rest);
    expect((await runCli(["token", "--resource", "chat"], dir)).stdout.trim()).toBe(tokens.chat!.accessToken);
    const answer = await fetch(`${server.url}/chat`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tokens.chat!.accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: "me traga pedidos pagos" }),
    });
    expect(answer.status).toBe(200);
    const me = await whoami(rest);
    expect(me.status, "the REST token still works").toBe(200);
    expect(me.body?.scopes).toEqual(expect.arrayContaining(["contracts.write", "snapshots.write"]));
  });

  it("refuses a scope the server does not offer before opening the browser", async () => {
    const result = await runCli(
      ["login", "--server", server.url, "--no-browser", "--scope", "orders.everything"],
      config,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("arbiter login: Unknown scope orders.everything: the server offers orders.read");
    expect(result.stderr).not.toContain("/authorize?");
  });

  it("--resource mcp stores an MCP token beside the REST one (on the system Node, older than the tests')", async () => {
    // The CLI promises Node 18.3+; the machine's own Node (20 here) stands in for an older one than the tests run on.
    const result = await login(
      config,
      /Ana Admin/,
      ["--resource", "mcp"],
      existsSync(SYSTEM_NODE) ? SYSTEM_NODE : process.execPath,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.url.searchParams.get("resource")).toBe(`${server.url}/mcp`);
    expect(result.url.searchParams.get("scope")!.split(" ")).toContain("offline_access");
    // Asked of the MCP server with the new token (its whoami tool): the account that finished the sign-in.
    expect(result.stdout).toMatch(/Signed in as user \S+ \(admin\) of organization /);
    const tokens = readCredentials(config).servers[server.url]!.tokens;
    const mcp = (await runCli(["token", "--resource", "mcp"], config)).stdout.trim();
    expect(mcp).toBe(tokens.mcp!.accessToken);
    expect((await runCli(["token"], config)).stdout.trim()).toBe(tokens.api!.accessToken);
    // Each resource refuses the other's token.
    expect((await whoami(mcp)).status).toBe(401);
    const initialize = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${mcp}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "cli-login-test", version: "1" },
        },
      }),
    });
    expect(initialize.status).toBe(200);
    await initialize.body?.cancel();
  });

  it("logout revokes the tokens at the server and deletes the file", async () => {
    const tokens = readCredentials(config).servers[server.url]!.tokens;
    const clientId = readCredentials(config).servers[server.url]!.clientId;
    const result = await runCli(["logout"], config);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Logged out of ${server.url}`);
    expect(existsSync(credentialsPath(config))).toBe(false);
    expect((await whoami(tokens.api!.accessToken)).status).toBe(401);
    const refresh = await fetch(`${server.url}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.mcp!.refreshToken!,
        client_id: clientId,
      }),
    });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant");

    const after = await runCli(["token"], config);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain("arbiter token: Not logged in to any server");
  });
});

describe("the landing page", () => {
  it("shows the login and token commands for this server", async () => {
    const page = await (await fetch(`${server.url}/`, { headers: { Accept: "text/html" } })).text();
    const block = /<code id="cli-login">([\s\S]*?)<\/code>/.exec(page)?.[1];
    expect(block?.split("\n")).toEqual([
      `curl -fsSO ${server.url}/cli/arbiter.mjs`,
      `node arbiter.mjs login --server ${server.url}`,
      "TOKEN=$(node arbiter.mjs token)",
    ]);
    expect(page).toContain('<a href="/cli/arbiter.mjs">');
  });
});

describe("arbiter login failures a person can read", () => {
  it("exits 2 and stores nothing when consent is denied", async () => {
    const config = configDir("denied");
    const cli = startCli(["login", "--server", server.url, "--no-browser"], config);
    const page = await answerInBrowser(await cli.url, /Mia Member/, "Deny");
    const result = await cli.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "arbiter login: Access was denied in the browser (access_denied): nothing was stored.",
    );
    expect(page).toContain("Access was denied in the browser");
    expect(existsSync(credentialsPath(config))).toBe(false);
  });

  it("ignores an answer whose state is not the one it sent, keeps waiting, and says whom the real login is for", async () => {
    const config = configDir("state");
    const cli = startCli(["login", "--server", server.url, "--no-browser"], config);
    const url = await cli.url;
    const redirect = new URL(url.searchParams.get("redirect_uri")!);
    redirect.search = new URLSearchParams({ code: "stolen-code", state: "someone-elses-state" }).toString();
    const answered = await fetch(redirect);
    expect(answered.status).toBe(400);
    expect(await answered.text()).toContain("keeps waiting");
    // Another process without the state cannot end the login either (no state at all, an error answer).
    expect((await fetch(`${redirect.origin}/callback?error=access_denied`)).status).toBe(400);
    expect(existsSync(credentialsPath(config))).toBe(false);
    await answerInBrowser(url, /Mia Member/, "Allow");
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Signed in as user \S+ \(member\) of organization /);
    const shown = await runCli(["token", "--whoami"], config);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(`^${server.url.replace(/[.:/]/g, "\\$&")}: REST API token of user \\S+ \\(member\\) of organization `),
    );
  });

  it("prints the URL when no browser can be opened and gives up after --timeout", async () => {
    const config = configDir("timeout");
    // An empty PATH: xdg-open / open cannot be found, so the printed URL is the only way in.
    const cli = startCli(["login", "--server", server.url, "--timeout", "1"], config, { PATH: "" });
    expect((await cli.url).pathname).toBe("/authorize");
    const result = await cli.done;
    expect(result.stderr).toContain("No browser could be opened here: open the URL yourself.");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("arbiter login: No answer from the browser within 1 s");
  });

  it("says so when the server cannot be reached", async () => {
    const port = await freePort();
    const result = await runCli(
      ["login", "--server", `http://127.0.0.1:${port}`, "--no-browser"],
      configDir("unreachable"),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`arbiter login: Cannot reach Arbiter at http://127.0.0.1:${port}: ECONNREFUSED.`);
  });
});
