/**
 * The verdict's MCP App view rendered by a headless host in Chromium: a real verdict from `wrangler dev` (a project
 * with recorded traffic, one break accepted, one not, and a property name carrying markup) is called over MCP with the
 * SDK client, the view is read as the resource the tool's listing names, and a host page runs it in a sandboxed
 * iframe speaking the MCP Apps postMessage protocol (ui/initialize, ui/notifications/tool-result, ui/open-link). The
 * view shows the verdict at a glance, the findings by operation and rule with their usage and acceptance, escapes the
 * document's text, makes no request, opens the console through the host, and is axe-clean at 1280 and 375 px.
 */
import AxeBuilder from "@axe-core/playwright";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser";
import { obtainToken } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { breakingSnapshot, ordersContract } from "../worker/contracts-api/fixtures";

const PROJECT = "app-view";
const MARKUP = "<img src=x onerror=alert(1)>";
let server: WranglerDev;
let browser: Browser;
let result: Record<string, any>;
let draftResult: Record<string, any>;
let view: string;
let viewUri: string;

async function rest(token: string, method: string, path: string, body: string, type = "application/json") {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": type },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

beforeAll(async () => {
  server = await sharedWranglerDev();
  const ci = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  await rest(ci, "POST", `/projects/${PROJECT}/contracts`, JSON.stringify(ordersContract()));
  const order = { id: "ord_1", total: 3 };
  await rest(
    ci,
    "POST",
    `/projects/${PROJECT}/exchanges`,
    [1, 2]
      .map(() => JSON.stringify({ method: "GET", path: "/orders/ord_1", status: 200, responseBody: order }))
      .join("\n"),
    "application/x-ndjson",
  );
  const first = await rest(
    ci,
    "POST",
    `/projects/${PROJECT}/snapshots?commit=a1`,
    JSON.stringify(breakingSnapshot(MARKUP)),
  );
  const markupBreak = first.verdict.violations.find((v: any) => v.location.startsWith("POST /orders"));
  await rest(
    ci,
    "POST",
    `/projects/${PROJECT}/accepted-breaks`,
    JSON.stringify({
      fingerprint: markupBreak.fingerprint,
      reason: "clients send it from v2",
      expiresAt: "2027-06-30",
    }),
  );
  await rest(ci, "POST", `/projects/${PROJECT}/snapshots?commit=a2`, JSON.stringify(breakingSnapshot(MARKUP)));

  const mcpToken = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read",
    resource: `${server.url}/mcp`,
  });
  const client = new Client({ name: "app-host-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } },
    }),
  );
  try {
    const tool = (await client.listTools()).tools.find((entry) => entry.name === "check_api_conformance")!;
    viewUri = (tool._meta as { ui: { resourceUri: string } }).ui.resourceUri;
    result = await client.callTool({ name: "check_api_conformance", arguments: { project: PROJECT } });
    draftResult = await client.callTool({
      name: "check_api_draft",
      arguments: { project: PROJECT, document: JSON.stringify(breakingSnapshot(MARKUP), null, 2) },
    });
    const read = await client.readResource({ uri: viewUri });
    view = (read.contents[0] as { text: string }).text;
  } finally {
    await client.close();
  }
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A host page: the view in a sandboxed iframe, the host side of ui/initialize, the tool result, and what it hears. */
async function host(width: number, toolResult = result): Promise<{ page: Page; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  await page.setContent(`<!doctype html><html lang="en"><head><title>Host</title></head><body style="margin:0">
<main><h1 style="position:absolute;left:-9999px">Test host</h1>
<iframe id="app" title="Arbiter verdict" sandbox="allow-scripts" style="border:0;width:100%;height:850px"></iframe></main>
<script>
  window.heard = [];
  const frame = document.getElementById("app");
  window.addEventListener("message", (event) => {
    if (event.source !== frame.contentWindow) return;
    const message = event.data;
    window.heard.push(message);
    const reply = (result) => frame.contentWindow.postMessage({ jsonrpc: "2.0", id: message.id, result }, "*");
    if (message.method === "ui/initialize")
      reply({ protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1" },
        hostCapabilities: { openLinks: {} }, hostContext: { theme: "light" } });
    if (message.method === "ui/notifications/initialized")
      frame.contentWindow.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: window.toolResult }, "*");
    if (message.method === "ui/open-link") reply({});
  });
</script></body></html>`);
  await page.evaluate(
    ([html, toolResult]) => {
      (window as unknown as { toolResult: unknown }).toolResult = toolResult;
      (document.getElementById("app") as HTMLIFrameElement).srcdoc = html as string;
    },
    [view, toolResult] as const,
  );
  await page.frameLocator("#app").getByText("Rejected", { exact: true }).waitFor();
  return { page, requests };
}

describe("the verdict view in a host", () => {
  it("shows the verdict at a glance and the findings by operation and rule, with usage and acceptance", async () => {
    const { page, requests } = await host(1280);
    const frame = page.frameLocator("#app");
    const text = ((await frame.locator("main").textContent()) ?? "").replace(/\s+/g, " ");
    expect(text).toContain(`Arbiter verdict: ${PROJECT}`);
    expect(text).toMatch(/Rejected Snapshot \d+ \(commit a2\) against contract v1/);
    expect(text).toContain("1 error");
    expect(text).toContain("1 accepted");
    expect(await frame.getByRole("heading", { level: 2, name: "GET /orders/{id}" }).count()).toBe(1);
    expect(await frame.getByRole("heading", { level: 3, name: "response-type (1)" }).count()).toBe(1);
    expect(text).toContain(
      "Usage: 2 recorded exchanges of this operation in the last 30 days, 2 of them responses 200 carrying /total.",
    );
    expect(text).toContain("Accepted by ana until 2027-06-30: clients send it from v2");
    // The document's markup is text: no image element, the name shown as written.
    expect(await frame.locator("img").count()).toBe(0);
    expect(text).toContain(MARKUP);
    // Nothing was fetched: the view came as srcdoc and makes no request of its own.
    expect(requests.filter((url) => !url.startsWith("about:") && !url.startsWith("data:"))).toEqual([]);

    await frame.getByRole("button", { name: "Open in the Arbiter console" }).click();
    await expect
      .poll(async () =>
        (await page.evaluate(() => (window as unknown as { heard: any[] }).heard)).find(
          (message) => message.method === "ui/open-link",
        ),
      )
      .toMatchObject({
        params: { url: expect.stringMatching(new RegExp(`/admin/projects/${PROJECT}/verdicts/\\d+$`)) },
      });
    const sized = (await page.evaluate(() => (window as unknown as { heard: any[] }).heard)).find(
      (message) => message.method === "ui/notifications/size-changed",
    );
    expect(sized.params.height).toBeGreaterThan(100);
    await page.context().close();
  });

  it("places a draft's findings on their lines in the document the agent sent", async () => {
    const { page } = await host(1280, draftResult);
    const text = ((await page.frameLocator("#app").locator("main").textContent()) ?? "").replace(/\s+/g, " ");
    const lines = draftResult._meta["arbiter/lines"] as Record<string, number>;
    const total = Object.entries(lines).find(([location]) => location.includes("properties/total"))!;
    expect(text).toContain(`#${total[0].split("#")[1]} line ${total[1]}`);
    expect(text).toContain("Draft against contract v1");
    await page.context().close();
  });

  for (const width of [1280, 375])
    it(`is axe-clean and fits without sideways scrolling at ${width} px`, async () => {
      const { page } = await host(width);
      const results = await new AxeBuilder({ page }).analyze();
      expect(
        results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
      ).toEqual([]);
      const frame = page.frame({ url: /about:srcdoc/ })!;
      const overflow = await frame.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.context().close();
    });
});
