// The organization admin console in a real browser (headless Chromium, 375 px wide) against `wrangler dev`:
// an administrator signs in, creates a CI key and CI uploads a snapshot with it, revokes the key (the next
// upload is refused), revokes a member's connected MCP client (its token stops working), and finds all of it
// in the audit trail. A member without the admin role is refused. Every console page passes axe-core (no
// serious or critical violation) and has no horizontal page scroll at 375 px. With every page populated, each
// page is checked at 1280 and 375 px: axe, no page scroll, no identifier (scope, rule id, event name, client
// id, commit, time) broken across lines, and at 375 px a visible hint under tables wider than the screen; the
// overview's chart of real tool calls and refusals is drawn inside the screen with readable labels at both widths.
import type { Browser, Page } from "playwright-core";
import { seriousViolations } from "../helpers/axe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "../helpers/oauth-http";

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
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } },
          },
        },
      },
    },
  },
};

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true", AUDIT_DRAIN_DELAY_SECONDS: "1" } }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function expectAccessible(page: Page, what: string) {
  const serious = await seriousViolations(page);
  expect(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    `${what} accessibility`,
  ).toEqual([]);
}

async function expectFitsNarrowScreen(page: Page, what: string) {
  const layout = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(layout.scroll, `${what} has no horizontal page scroll at ${layout.width} px`).toBeLessThanOrEqual(
    layout.width,
  );
}

async function checkPage(page: Page, what: string) {
  await expectAccessible(page, what);
  await expectFitsNarrowScreen(page, what);
}

/**
 * No identifier in a table cell (or a rule heading) is broken across lines: every `.ident` (and <time>) has one line box, and so
 * does each leaf element whose whole text is one of `known` (which must be on the page as an identifier).
 */
async function expectIdentifiersWhole(page: Page, what: string, known: string[] = []) {
  const found = await page.evaluate((names) => {
    const cells = [...document.querySelectorAll(".table-wrap td, .rule-group h3")];
    const idents = cells.flatMap((cell) => [...cell.querySelectorAll(".ident, time")]);
    const leaves = cells.flatMap((cell) => [...cell.querySelectorAll("*")].filter((el) => el.children.length === 0));
    const lines = (el: Element) => el.getClientRects().length;
    return {
      identCount: idents.length,
      broken: idents.filter((el) => lines(el) > 1).map((el) => `${el.textContent} (${lines(el)} lines)`),
      missing: names.filter((name) => !idents.some((el) => el.textContent?.trim() === name)),
      knownBroken: names.filter((name) => leaves.some((el) => el.textContent?.trim() === name && lines(el) > 1)),
    };
  }, known);
  expect(found.identCount, `${what}: identifiers are marked`).toBeGreaterThan(0);
  expect(found.missing, `${what}: identifiers shown as such`).toEqual([]);
  expect(found.knownBroken, `${what}: known identifiers on one line`).toEqual([]);
  expect(found.broken, `${what}: identifiers on one line`).toEqual([]);
}

/** At 375 px, every table wider than its region shows the scroll hint the region points at; at 1280 px none is needed. */
async function expectScrollHints(page: Page, what: string) {
  const regions = await page.evaluate(() =>
    [...document.querySelectorAll(".table-wrap")].map((region) => {
      const hint = document.getElementById(region.getAttribute("aria-describedby") ?? "");
      return {
        label: region.getAttribute("aria-label"),
        focusable: region.getAttribute("tabindex") === "0" && region.getAttribute("role") === "region",
        overflows: region.scrollWidth > region.clientWidth,
        hintVisible: !!hint && hint.getClientRects().length > 0,
      };
    }),
  );
  for (const region of regions) {
    expect(region.label, `${what}: table region labelled`).toBeTruthy();
    expect(region.focusable, `${what}: ${region.label} is a focusable region`).toBe(true);
    if (region.overflows) expect(region.hintVisible, `${what}: ${region.label} scrolls and says so`).toBe(true);
  }
  return regions;
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
    headers: {
      Authorization: `Bearer ${token}`,
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
        clientInfo: { name: "console-e2e", version: "1.0.0" },
      },
    }),
  });
}

/** One tools/call in an initialized session; the answer's body is read to its end (it may be an event stream). */
async function mcpToolCall(
  token: string,
  session: string,
  id: number,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
  });
  return { status: response.status, text: await response.text() };
}

/** The overview's tool-activity chart is drawn, inside the screen, with its text at a readable size. */
async function expectActivityChart(page: Page, width: number) {
  const chart = page.getByRole("img", { name: "Tool calls and refusals per day" });
  await chart.waitFor({ state: "visible" });
  const box = (await chart.boundingBox())!;
  expect(box.x + box.width, `the chart fits ${width} px`).toBeLessThanOrEqual(width);
  const fontPx = await chart.evaluate((svg) => {
    const label = svg.querySelector("text")!;
    return label.getBoundingClientRect().height;
  });
  expect(fontPx, `chart labels are readable at ${width} px`).toBeGreaterThanOrEqual(11);
  const description = await chart.evaluate((svg) => svg.querySelector("desc")?.textContent ?? "");
  expect(description).toMatch(/\d+ tool calls? of \d+ tools?, [1-9]\d* refused or failed/);
  expect(description).toContain("whoami: ");
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
    const adminToken = await obtainToken(server.url, {
      user: "ana",
      scope: "contracts.write",
      resource: `${server.url}/api`,
    });
    const contract = await fetch(`${server.url}/api/v1/projects/storefront/contracts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(CONTRACT),
    });
    expect(contract.status).toBe(201);
    const miaToken = await obtainToken(server.url, {
      user: "mia",
      scope: "orders.read contracts.read",
      resource: `${server.url}/mcp`,
    });
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
    await page
      .getByRole("row")
      .filter({ hasText: `ci-key:${keyId}` })
      .filter({ hasText: "REST API" })
      .waitFor({ state: "visible" });

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
    await events
      .getByRole("row")
      .filter({ hasText: "POST /api/v1/projects/:project/snapshots" })
      .waitFor({ state: "visible" });
    await context.close();
  }, 120_000);

  it("shows every populated page whole at 1280 and 375 px: axe, no page scroll, identifiers on one line, scroll hints", async () => {
    const mia = await obtainToken(server.url, {
      user: "mia",
      scope: "orders.read orders.search contracts.read",
      resource: `${server.url}/mcp`,
    });
    // Real tool calls for the overview's chart: two that succeed and one refused for a scope mia's client lacks.
    const initialized = await mcpInitialize(mia);
    const session = initialized.headers.get("mcp-session-id")!;
    await initialized.body?.cancel();
    expect((await mcpToolCall(mia, session, 2, "whoami")).status).toBe(200);
    expect((await mcpToolCall(mia, session, 3, "whoami")).status).toBe(200);
    const refused = await mcpToolCall(mia, session, 4, "audit_events_list", { limit: 1 });
    expect(refused.status, "a missing scope is a 403 step-up").toBe(403);
    expect(refused.text).toContain("audit.read");
    // The session's records reach the audit store about a second after the answers (its outbox drains in bursts):
    // wait for them here, before the records the pages below look for, so the polls do not push those off page one.
    const auditor = await obtainToken(server.url, { user: "ana", scope: "audit.read", resource: `${server.url}/api` });
    await expect
      .poll(
        async () => {
          const listed = await fetch(`${server.url}/api/v1/audit/events?target=whoami&kind=tool`, {
            headers: { Authorization: `Bearer ${auditor}` },
          });
          return ((await listed.json()) as { events: unknown[] }).events.length;
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThanOrEqual(2);
    const admin = await obtainToken(server.url, {
      user: "ana",
      scope: "contracts.write snapshots.write contracts.read keys.admin",
      resource: `${server.url}/api`,
    });
    const rest = (method: string, path: string, body: unknown, type = "application/json") =>
      fetch(`${server.url}/api/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${admin}`, "Content-Type": type },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    expect((await rest("POST", "/projects/orders-service/contracts?label=001-orders-search", CONTRACT)).status).toBe(
      201,
    );
    const wider = structuredClone(CONTRACT) as { paths: Record<string, unknown> };
    wider.paths["/orders"] = { get: { operationId: "searchOrders", responses: { "200": { description: "ok" } } } };
    expect((await rest("POST", "/projects/orders-service/contracts?label=002-orders-search", wider)).status).toBe(201);
    expect((await rest("POST", "/projects/orders-service/contracts?label=003-orders-narrow", CONTRACT)).status).toBe(
      201,
    );
    const implementation = structuredClone(wider) as { paths: Record<string, unknown> };
    implementation.paths["/orders/{id}/refunds"] = {
      post: { operationId: "refundOrder", responses: { "201": { description: "created" } } },
    };
    const snapshot = await rest(
      "POST",
      "/projects/orders-service/snapshots?commit=0123456789abcdef0123&branch=feature/long-branch-name",
      implementation,
    );
    expect(snapshot.status).toBe(201);
    const { snapshot: stored } = (await snapshot.json()) as { snapshot: { verdictId: number } };
    expect(
      (
        await rest("POST", "/projects/orders-service/builds", {
          commit: "fedcba9876543210",
          branch: "main",
          log: "error TS2304: Cannot find name 'orderz'. The build stopped after the first error in src/orders/search.ts",
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await rest("POST", "/keys", {
          name: "orders-service GitHub Actions",
          projects: ["orders-service"],
          scopes: ["snapshots.write", "contracts.read"],
        })
      ).status,
    ).toBe(201);

    // A pending invitation, so the Organization page shows its table with the Withdraw button.
    const orgAdmin = await obtainToken(server.url, { user: "ana", scope: "org.admin", resource: `${server.url}/api` });
    const invited = await fetch(`${server.url}/api/v1/organization/invitations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${orgAdmin}`, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "new.reader@acme.example", role: "member" }),
    });
    expect(invited.status).toBe(201);

    const pages: Array<{ path: string; heading: string | RegExp; known?: string[] }> = [
      { path: "/admin", heading: "Acme Commerce" },
      { path: "/admin/clients", heading: "Connected clients", known: ["orders.search", "contracts.read"] },
      { path: "/admin/keys", heading: "CI keys", known: ["snapshots.write", "orders-service"] },
      { path: "/admin/projects", heading: "Projects", known: ["orders-service", "003-orders-narrow"] },
      {
        path: "/admin/projects/orders-service",
        heading: "orders-service",
        known: ["001-orders-search", "feature/long-branch-name"],
      },
      {
        path: `/admin/projects/orders-service/verdicts/${stored.verdictId}`,
        heading: /^Verdict \d+ of orders-service$/,
        known: ["undocumented-operation", "POST /orders/{id}/refunds"],
      },
      {
        path: "/admin/projects/orders-service/contracts/3/changes",
        heading: /changes since v2/,
        known: ["missing-operation", "GET /orders"],
      },
      { path: "/admin/audit", heading: "Audit trail", known: ["ci_key_created"] },
      { path: "/admin/usage", heading: "Rate limits" },
      { path: "/admin/organization", heading: "Organization", known: ["organization.seeded"] },
    ];
    for (const width of [1280, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/admin`);
      await signIn(page, /Ana Admin/);
      for (const { path, heading, known } of pages) {
        await page.goto(`${server.url}${path}`);
        await page.getByRole("heading", { level: 1, name: heading }).waitFor({ state: "visible" });
        const what = `${path} at ${width} px`;
        await checkPage(page, what);
        if (path === "/admin") await expectActivityChart(page, width);
        await expectIdentifiersWhole(page, what, known);
        const regions = await expectScrollHints(page, what);
        if (width === 375 && path === "/admin/audit")
          expect(
            regions.some((r) => r.overflows && r.hintVisible),
            `${what}: the audit table scrolls, with its hint`,
          ).toBe(true);
      }
      // Audit reasons are cut at a word with an ellipsis; the full text is in the title.
      await page.goto(`${server.url}/admin/audit`);
      const cut = page.locator("td.reason span[title]").first();
      if ((await cut.count()) > 0) {
        const [shown, full] = [await cut.textContent(), await cut.getAttribute("title")];
        expect(shown!.endsWith("\u2026")).toBe(true);
        expect(full!.startsWith(shown!.slice(0, -1))).toBe(true);
        expect(full![shown!.length - 1]).toMatch(/\s|[,.;:]/);
      }
      // On a phone the overview's first column holds outcome, event, time and user: all inside the screen.
      if (width === 375) {
        await page.goto(`${server.url}/admin`);
        const first = page
          .getByRole("region", { name: "Recent audit events" })
          .locator("tbody tr")
          .first()
          .locator("td")
          .first();
        const box = await first.boundingBox();
        expect(box!.x + box!.width, "the overview's first column fits a phone").toBeLessThanOrEqual(375);
        await first.locator("time").waitFor({ state: "visible" });
      }
      await context.close();
    }
  }, 240_000);

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

describe("the accessibility check these pages pass", () => {
  it("finds what axe finds: an image without text, a nameless button, low contrast; and refuses a page with frames", async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><head><title>t</title></head><body><main><img src="data:,">' +
        '<button></button><p style="color:#bbb;background:#fff">faint</p></main></body></html>',
    );
    expect((await seriousViolations(page)).map((v) => v.id).sort()).toEqual([
      "button-name",
      "color-contrast",
      "image-alt",
    ]);
    await page.setContent(
      '<!doctype html><html lang="en"><body><iframe srcdoc="<p>inside</p>"></iframe></body></html>',
    );
    await expect(seriousViolations(page)).rejects.toThrow(/without frames; this one has 1/);
    await context.close();
  });
});

describe('the landing page\'s "From a terminal" block', () => {
  it("is readable (axe clean), keeps each command on one line and can be reached and scrolled by keyboard, at 1280 and 375 px", async () => {
    for (const width of [1280, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/`);
      const what = `the landing page at ${width} px`;
      await checkPage(page, what);
      // The commands sit on the dark block itself: no light code background under light text (1.03:1 before).
      const colours = await page.locator("#cli-login").evaluate((code) => ({
        code: getComputedStyle(code).backgroundColor,
        block: getComputedStyle(code.parentElement!).backgroundColor,
      }));
      expect(colours.code, what).toBe("rgba(0, 0, 0, 0)");
      // Three commands, three line boxes: nothing wraps inside a word (or at all).
      expect(
        await page
          .locator("#cli-login")
          .evaluate((code) => new Set([...code.getClientRects()].map((r) => Math.round(r.top))).size),
        what,
      ).toBe(3);
      // Reachable by Tab, and the arrow keys scroll it when it is wider than the screen.
      let focused = false;
      for (let i = 0; i < 15 && !focused; i++) {
        await page.keyboard.press("Tab");
        focused = await page.evaluate(
          () =>
            document.activeElement?.querySelector("#cli-login") !== null && document.activeElement?.tagName === "PRE",
        );
      }
      expect(focused, `${what}: the block takes the keyboard focus`).toBe(true);
      const overflows = await page.locator("pre:has(#cli-login)").evaluate((pre) => pre.scrollWidth > pre.clientWidth);
      if (overflows) {
        await page.keyboard.press("ArrowRight");
        await page.keyboard.press("ArrowRight");
        // Chromium animates keyboard scrolling: wait for the scroll to start instead of reading it at once.
        await expect
          .poll(() => page.locator("pre:has(#cli-login)").evaluate((pre) => pre.scrollLeft), {
            message: `${what}: arrow keys scroll the block`,
            timeout: 3000,
          })
          .toBeGreaterThan(0);
      }
      if (width === 375) expect(overflows, "at 375 px the commands are wider than the screen and scroll").toBe(true);
      await context.close();
    }
  });
});
