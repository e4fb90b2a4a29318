/**
 * The verdict as an MCP App, in both protocol eras: the three verdict tools name the view in their listing's
 * `_meta.ui.resourceUri`, resources/list and resources/read give it as `text/html;profile=mcp-app` with a CSP that
 * allows no network and no domain, every tool result names its console page for the view's link, and the text and
 * structured content a host without apps reads are what they were. Rendering is tested in Chromium
 * (test/node/verdict-app.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { APP_MIME_TYPE, VERDICT_VIEW_URI } from "../../../src/tools/spec-arbitration/verdict-view";
import { mcpPrincipal } from "../harness";
import { modernPost, readRpc } from "../helpers";
import { ordersContract, violatingSnapshot } from "./fixtures";
import {
  type Agent,
  callTool,
  ciPrincipal,
  connectPrincipal,
  request,
  uploadContract,
  uploadSnapshot,
} from "./helpers";

const PROJECT = "app-view";
const VIEW_TOOLS = ["check_api_conformance", "check_api_draft", "compare_contract_versions"];
let agent: Agent;

beforeAll(async () => {
  const ci = ciPrincipal("ana");
  await uploadContract(ci, PROJECT, ordersContract());
  await uploadSnapshot(ci, PROJECT, violatingSnapshot(), "v13w");
  agent = await connectPrincipal("ana");
});

const stateless = async (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  (await readRpc(await modernPost(mcpPrincipal("ana", "contracts.read"), method, params, headers)))[0]!;

describe("the verdict view", () => {
  it("is named by the three verdict tools' listings in both eras, and by no other tool", async () => {
    for (const tools of [
      (await request(agent, "tools/list")).result.tools,
      (await stateless("tools/list")).result.tools,
    ] as Array<Array<{ name: string; _meta?: Record<string, any> }>>) {
      const withView = tools
        .filter((tool) => tool._meta?.ui?.resourceUri === VERDICT_VIEW_URI)
        .map((tool) => tool.name);
      expect(withView.sort()).toEqual([...VIEW_TOOLS].sort());
      for (const name of VIEW_TOOLS) {
        const tool = tools.find((entry) => entry.name === name)!;
        expect(tool._meta!["ui/resourceUri"]).toBe(VERDICT_VIEW_URI);
        expect(tool._meta!.requiredScopes).toEqual(["contracts.read"]);
      }
    }
  });

  it("is listed and read as an MCP App resource with a CSP that allows no network, in both eras", async () => {
    const listed = [
      (await request(agent, "resources/list")).result.resources,
      (await stateless("resources/list")).result.resources,
    ] as Array<Array<{ uri: string; mimeType: string; _meta?: any }>>;
    for (const resources of listed) {
      const view = resources.find((resource) => resource.uri === VERDICT_VIEW_URI)!;
      expect(view.mimeType).toBe(APP_MIME_TYPE);
      expect(view._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [] });
    }
    const reads = [
      (await request(agent, "resources/read", { uri: VERDICT_VIEW_URI })).result.contents[0],
      (await stateless("resources/read", { uri: VERDICT_VIEW_URI }, { "Mcp-Name": VERDICT_VIEW_URI })).result
        .contents[0],
    ];
    for (const content of reads) {
      expect(content.mimeType).toBe(APP_MIME_TYPE);
      expect(content._meta.ui.prefersBorder).toBe(true);
      const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(content.text)![1]!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("connect-src 'none'");
      expect(csp).toMatch(/script-src 'nonce-[0-9a-f]{32}'/);
      expect(content.text).not.toMatch(
        /innerHTML|insertAdjacentHTML|outerHTML|document\.write|fetch\(|XMLHttpRequest|WebSocket/,
      );
    }
    // A fresh nonce per read.
    expect(reads[0].text).not.toBe(reads[1].text);
  });

  it("is refused to a caller without contracts.read", async () => {
    const member = await connectPrincipal("mia", "orders.read");
    const refused = await request(member, "resources/read", { uri: VERDICT_VIEW_URI }).catch((error: Error) => error);
    expect(JSON.stringify(refused)).toContain("contracts.read");
  });

  it("gets each verdict tool's console page in the result's _meta; text and structured content are unchanged", async () => {
    const checked = await callTool(agent, "check_api_conformance", { project: PROJECT });
    expect(checked._meta["arbiter/consoleUrl"]).toMatch(
      new RegExp(`^http://localhost:8787/admin/projects/${PROJECT}/verdicts/\\d+$`),
    );
    expect(checked.structuredContent.approved).toBe(false);
    expect(checked.content[0].text).toContain("Arbiter conformance");
    expect(Object.keys(checked.structuredContent)).not.toContain("consoleUrl");
    const draft = await callTool(agent, "check_api_draft", { project: PROJECT, document: ordersContract() });
    expect(draft._meta["arbiter/consoleUrl"]).toBe(`http://localhost:8787/admin/projects/${PROJECT}`);
    // A conforming draft sent as an object: nothing to locate, no lines.
    expect(draft._meta["arbiter/lines"]).toBeUndefined();
  });

  it("places a text draft's findings on their lines for the view", async () => {
    const text = JSON.stringify(violatingSnapshot(), null, 2);
    const draft = await callTool(agent, "check_api_draft", { project: PROJECT, document: text });
    const lines = draft._meta["arbiter/lines"] as Record<string, number>;
    const missing = draft.structuredContent.violations.find((v: any) => v.rule === "missing-operation");
    // The draft keeps the path /orders/{id} without its GET: the finding sits on that path's line.
    const pathLine = text.split("\n").findIndex((line) => line.includes('"/orders/{id}"')) + 1;
    expect(pathLine).toBeGreaterThan(1);
    expect(lines[missing.location], JSON.stringify({ lines, location: missing.location })).toBe(pathLine);
  });
});
