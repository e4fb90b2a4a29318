// The organization admin console in a real browser (headless Chromium, 375 px wide) against `wrangler dev`:
// an administrator signs in, creates a CI key and CI uploads a snapshot with it, revokes the key (the next
// upload is refused), revokes a member's connected MCP client (its token stops working), and finds all of it
// in the audit trail. A member without the admin role is refused. Every console page passes axe-core (no
// serious or critical violation) and has no horizontal page scroll at 375 px.
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "./contracts-subscription-auth";

let server: WranglerDev;
let browser: Browser;

const CONTRACT = {
  openapi: "3.1.0",
  info: { title: "Storefront", version: "1.0.0" },
  paths: {
    "/orders/{id}": {
      get: {
        operationId: "getOrder",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } } } },
      },
    },
  },
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`), `${what} accessibility`).toEqual([]);
}

async function expectFitsNarrowScreen(page: Page, what: string) {
  const layout = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(layout.scroll, `${what} has no horizontal page scroll at ${layout.width} px`).toBeLessThanOrEqual(layout.width);
}

async function checkPage(page: Page, what: string) {
  await expectAccessible(page, what);
  await expectFitsNarrowScreen(page, what);
}

function uploadSnapshot(key: string, commit: string): Promise<Response> {
  return fetch(`${server.url}/api/v1/projects/storefront/snapshots?commit=${commit}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(CONTRACT),
  });
}

function mcpInitialize(token: string): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "console-e2e", version: "1.0.0" } } }),
  });
}

async function signIn(page: Page, who: RegExp) {
  await page.getByRole("heading", { name: "Sign in" }).waitFor({ state: "visible" });
  await page.getByRole("radio", { name: who }).check();
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function goTo(page: Page, link: string, heading: string) {
  await page.getByRole("navigation", { name: "Admin console" }).getByRole("link", { name: link }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor({ state: "visible" });
}

describe("admin console in a real browser", () => {
  it("creates and revokes a CI key, revokes a connected client, and shows it all in the audit trail", async () => {
    // A contract to check snapshots against (uploaded with an admin REST token), and a member's MCP client.
    const adminToken = await obtainToken(server.url, { user: "ana", scope: "contracts.write", resource: `${server.url}/api` });
    const contract = await fetch(`${server.url}/api/v1/projects/storefront/contracts`, { method: "POST", headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" }, body: JSON.stringify(CONTRACT) });
    expect(contract.status).toBe(201);
    const miaToken = await obtainToken(server.url, { user: "mia", scope: "orders.read contracts.read", resource: `${server.url}/mcp` });
    const before = await mcpInitialize(miaToken);
    expect(before.status).toBe(200);
    await before.body?.cancel();

    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/admin`);
    await signIn(page, /Ana Admin/);
    await page.getByRole("heading", { level: 1, name: "Acme Commerce" }).waitFor({ state: "visible" });
    expect(new URL(page.url()).pathname).toBe("/admin");
    await checkPage(page, "overview");

    // Create a CI key: the secret is shown once.
    await goTo(page, "CI keys", "CI keys");
    await checkPage(page, "CI keys");
    await page.getByLabel(/^Name/).fill("storefront CI");
    await page.getByRole("checkbox", { name: "storefront" }).check();
    await page.getByRole("checkbox", { name: /snapshots\.write/ }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: 'Key "storefront CI" created' }).waitFor({ state: "visible" });
    const secret = (await page.locator("#new-key-secret").textContent())!.trim();
    expect(secret).toMatch(/^arb_ci_acme_[0-9a-f]{16}_/);
    const keyId = secret.split("_")[3]!;
    await checkPage(page, "CI key created");

    // CI uploads a snapshot with it.
    const upload = await uploadSnapshot(secret, "c0ffee01");
    expect(upload.status).toBe(201);
    expect(((await upload.json()) as { verdict: { approved: boolean } }).verdict.approved).toBe(true);

    // Revoke it: the secret is not on the list page, and the next upload is refused.
    await goTo(page, "CI keys", "CI keys");
    expect(await page.content()).not.toContain(secret);
    await page.getByRole("button", { name: "Revoke CI key storefront CI" }).click();
    await page.getByRole("status").filter({ hasText: "The CI key was revoked" }).waitFor({ state: "visible" });
    expect(await page.getByRole("button", { name: "Revoke CI key storefront CI" }).count()).toBe(0);
    expect((await uploadSnapshot(secret, "c0ffee02")).status).toBe(401);

    // Revoke mia's connected MCP client: its token stops working.
    await goTo(page, "Connected clients", "Connected clients");
    await checkPage(page, "connected clients");
    await page.getByRole("button", { name: "Revoke E2E client for Mia Member" }).click();
    await page.getByRole("status").filter({ hasText: "The grant was revoked" }).waitFor({ state: "visible" });
    expect(await page.getByRole("button", { name: "Revoke E2E client for Mia Member" }).count()).toBe(0);
    expect((await mcpInitialize(miaToken)).status).toBe(401);

    // The project with its active contract and the verdict of the snapshot CI uploaded.
    await goTo(page, "Projects", "Projects");
    await checkPage(page, "projects");
    const project = page.getByRole("row").filter({ hasText: "storefront" });
    await project.getByText("c0ffee01").waitFor({ state: "visible" });
    await project.getByText("approved").waitFor({ state: "visible" });

    await goTo(page, "Rate limits", "Rate limits");
    await checkPage(page, "rate limits");
    await page.getByRole("row").filter({ hasText: `ci-key:${keyId}` }).filter({ hasText: "REST API" }).waitFor({ state: "visible" });

    // The audit trail shows the key's life, the upload made with it and the revoked grant.
    await goTo(page, "Audit trail", "Audit trail");
    await checkPage(page, "audit trail");
    await page.getByLabel("Kind").selectOption("oauth");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/kind=oauth/);
    const events = page.getByRole("region", { name: "Audit events" });
    for (const target of ["ci_key_created", "ci_key_revoked", "revoke", "grant"]) {
      await events.getByText(target, { exact: true }).first().waitFor({ state: "visible" });
    }
    const keyEvents = events.getByRole("row").filter({ hasText: keyId });
    expect(await keyEvents.count()).toBe(2);
    expect(await events.getByRole("row").filter({ hasText: "admin console" }).count()).toBe(1);
    await checkPage(page, "audit trail, filtered");

    await page.getByLabel("Kind").selectOption("");
    await page.getByLabel(/^Client/).fill(`ci-key:${keyId}`);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/client=ci-key/);
    await events.getByRole("row").filter({ hasText: "POST /api/v1/projects/:project/snapshots" }).waitFor({ state: "visible" });
    await context.close();
  }, 120_000);

  it("refuses a member without the admin role", async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/admin/keys`);
    await signIn(page, /Mia Member/);
    await page.getByRole("heading", { level: 1, name: "Administrators only" }).waitFor({ state: "visible" });
    expect(new URL(page.url()).pathname).toBe("/admin/keys");
    expect(await page.getByText('role "member"').count()).toBe(1);
    expect(await page.getByRole("navigation", { name: "Admin console" }).count()).toBe(0);
    await checkPage(page, "refusal page");
    const answer = await page.request.get(`${server.url}/admin/clients`);
    expect(answer.status()).toBe(403);
    await context.close();
  });
});
