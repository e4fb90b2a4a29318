// A person in a real browser (headless Chromium): signs in with the development sign-in, sees the consent
// page, unticks a scope and approves (the token lacks that scope); Deny sends access_denied to the client.
// Accessibility is checked with axe-core, and the page is used at 375 px wide.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { seriousViolations } from "../helpers/axe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";

let server: WranglerDev;
let browser: Browser;
let callback: Server;
let callbackUrl: string;
const received: URL[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([sharedWranglerDev(), launchBrowser()]);
  callback = createServer((req, res) => {
    received.push(new URL(req.url ?? "/", callbackUrl));
    res.writeHead(200, { "Content-Type": "text/plain" }).end("client callback reached");
  });
  await new Promise<void>((done) => callback.listen(0, "127.0.0.1", done));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
});

afterAll(async () => {
  await browser?.close();
  callback?.close();
  await server?.stop();
});

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

async function registerAndAuthorizeUrl(scope: string) {
  const reg = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Browser Test Client",
      redirect_uris: [callbackUrl],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(reg.status).toBe(201);
  const client = (await reg.json()) as { client_id: string };
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  const url = `${server.url}/authorize?${new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: callbackUrl, code_challenge: challenge, code_challenge_method: "S256", state: "browser-state", scope, resource: `${server.url}/mcp` })}`;
  return { client, verifier, url };
}

async function expectAccessible(page: Page, what: string) {
  const serious = await seriousViolations(page);
  expect(
    serious.map((v) => `${v.id}: ${v.help}`),
    `${what} accessibility`,
  ).toEqual([]);
}

async function expectFitsNarrowScreen(page: Page, what: string) {
  const layout = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(layout.scroll, `${what} has no horizontal scrolling at ${layout.width} px`).toBeLessThanOrEqual(layout.width);
}

describe("consent in a real browser", () => {
  it("signs in, unticks one scope, approves, and the token lacks the unticked scope", async () => {
    const { client, verifier, url } = await registerAndAuthorizeUrl("orders.read orders.search contracts.read");
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole("heading", { name: "Sign in" }).waitFor({ state: "visible" });
    await page.getByText("Development sign-in: for local use only").waitFor({ state: "visible" });
    await expectAccessible(page, "sign-in page");
    await expectFitsNarrowScreen(page, "sign-in page");
    await page.getByRole("radio", { name: /Ana Admin/ }).check();
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByRole("heading", { name: /Allow Browser Test Client to use Arbiter/ }).waitFor({ state: "visible" });
    expect(await page.locator("#redirect-host").textContent()).toBe("127.0.0.1");
    await page.locator("#loopback-warning").waitFor({ state: "visible" });
    await expectAccessible(page, "consent page");
    await expectFitsNarrowScreen(page, "consent page");
    const allow = page.getByRole("button", { name: "Allow" });
    const box = await allow.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);

    const search = page.getByRole("checkbox", { name: /orders\.search/ });
    expect(await search.isChecked()).toBe(true);
    await search.uncheck();
    await allow.click();
    await page.waitForURL(/\/callback\?/);

    const redirect = received.at(-1)!;
    expect(redirect.searchParams.get("state")).toBe("browser-state");
    const code = redirect.searchParams.get("code")!;
    const token = await fetch(`${server.url}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: callbackUrl,
        client_id: client.client_id,
        code_verifier: verifier,
        resource: `${server.url}/mcp`,
      }),
    });
    expect(token.status).toBe(200);
    const granted = ((await token.json()) as { scope: string }).scope.split(" ").sort();
    expect(granted).toEqual(["contracts.read", "orders.read"]);
    await context.close();
  });

  it("names the app on the sign-in page, marks sensitive scopes unticked, states the lifetime, and Not you? switches account (1280 and 375 px)", async () => {
    for (const width of [1280, 375]) {
      const { url } = await registerAndAuthorizeUrl("orders.read orders.pii offline_access");
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      await page.goto(url);
      await page
        .locator("#requesting-app")
        .filter({ hasText: "Sign in to continue to Browser Test Client" })
        .waitFor({ state: "visible" });
      await expectAccessible(page, `sign-in page at ${width} px`);
      await page.getByRole("radio", { name: /Mia Member/ }).check();
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: /Allow Browser Test Client/ }).waitFor({ state: "visible" });
      // Mia (member) may not grant orders.pii; Not you? lets Ana (admin) sign in to the same request.
      await page.getByRole("link", { name: /Not you\?/ }).click();
      await page.getByRole("radio", { name: /Ana Admin/ }).check();
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByText("Signed in as Ana Admin").waitFor({ state: "visible" });
      await expectAccessible(page, `consent page at ${width} px`);
      await expectFitsNarrowScreen(page, `consent page at ${width} px`);
      const pii = page.getByRole("checkbox", { name: /orders\.pii/ });
      expect(await pii.isChecked()).toBe(false);
      expect(await page.getByRole("checkbox", { name: /orders\.read/ }).isChecked()).toBe(true);
      await page.getByText("Sensitive: personal data: customer names unmasked.").waitFor({ state: "visible" });
      const badge = page.locator("label.scope", { has: pii }).locator(".badge-sensitive");
      expect(await badge.textContent()).toBe("sensitive");
      expect(await badge.evaluate((el) => el.getClientRects().length)).toBe(1);
      expect(await page.locator("#grant-lifetime").textContent()).toContain("stays connected for up to 30 days");
      await pii.check();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL(/\/callback\?/);
      await context.close();
    }
  });

  it("Deny returns access_denied to the client", async () => {
    const { url } = await registerAndAuthorizeUrl("orders.read");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole("radio", { name: /Mia Member/ }).check();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Deny" }).waitFor({ state: "visible" });
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL(/\/callback\?/);
    const redirect = received.at(-1)!;
    expect(redirect.searchParams.get("error")).toBe("access_denied");
    expect(redirect.searchParams.get("state")).toBe("browser-state");
    expect(redirect.searchParams.get("code")).toBeNull();
    await context.close();
  });

  it("renders a client name with markup as text", async () => {
    const reg = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "<img src=x onerror=\"document.title='pwned'\">Evil",
        redirect_uris: [callbackUrl],
        token_endpoint_auth_method: "none",
      }),
    });
    const client = (await reg.json()) as { client_id: string };
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(
      `${server.url}/authorize?${new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: callbackUrl, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", resource: `${server.url}/mcp` })}`,
    );
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.locator("#client-name").textContent()).toBe("<img src=x onerror=\"document.title='pwned'\">Evil");
    expect(await page.title()).not.toBe("pwned");
    expect(await page.locator("#client-name img").count()).toBe(0);
    await context.close();
  });
});
