// The console's page per project and per verdict: contract versions with labels, the active one and each
// version's breaking changes; snapshots with verdicts; failed builds; a verdict's violations grouped by rule
// with severity and location, its Markdown as escaped text, and downloads (administrators of the same
// organization only). A contract with no operations never shows a green "approved".
import { beforeAll, describe, expect, it } from "vitest";
import { callJson } from "../contracts-api/api-helpers";
import { restPrincipal } from "../harness";
import { ordersContract, text } from "../contracts-api/fixtures";
import { browserFetch, CookieJar } from "../helpers";
import { signedIn, visibleText } from "./console-helpers";

let snapshotVerdict: number;
let snapshotId: number;

beforeAll(async () => {
  const token = restPrincipal("ana", "contracts.write snapshots.write contracts.read");
  expect(
    (await callJson(token, "POST", "/projects/shop/contracts?label=001-shop", text(ordersContract()))).status,
  ).toBe(201);
  // v2 drops GET /orders/{id}: a breaking change for clients of v1 (policy "warn": it becomes active).
  const smaller = structuredClone(ordersContract()) as { paths: Record<string, unknown> };
  delete smaller.paths["/orders/{id}"];
  expect((await callJson(token, "POST", "/projects/shop/contracts?label=002-shop", text(smaller))).status).toBe(201);
  // The snapshot implements v1's API plus a path whose name carries markup: it reaches the Markdown report.
  const implementation = structuredClone(ordersContract()) as { paths: Record<string, unknown> };
  implementation.paths["/x<img src=x onerror=alert(1)>"] = {
    get: { operationId: "evil", responses: { "200": { description: "ok" } } },
  };
  const snapshot = await callJson(
    token,
    "POST",
    "/projects/shop/snapshots?commit=feedface0001&branch=main",
    text(implementation),
  );
  expect(snapshot.status).toBe(201);
  expect(snapshot.body.verdict.approved).toBe(false);
  snapshotVerdict = snapshot.body.snapshot.verdictId;
  snapshotId = snapshot.body.snapshot.id;
  expect(
    (
      await callJson(token, "POST", "/projects/shop/builds", {
        commit: "badbeef0002",
        branch: "main",
        log: "error TS2304: Cannot find name 'x'.",
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await callJson(
        token,
        "POST",
        "/projects/hollow/contracts?allowEmpty=true",
        text({ openapi: "3.1.0", info: { title: "Hollow", version: "1" }, paths: {} }),
      )
    ).status,
  ).toBe(201);
});

describe("project page", () => {
  it("shows contract versions with labels, the active one, breaking changes, snapshots with verdicts and failed builds", async () => {
    const ana = await signedIn("ana");
    const list = await ana.get("/admin/projects");
    expect(list.text).toContain('href="/admin/projects/shop"');

    const page = await ana.get("/admin/projects/shop");
    expect(page.status).toBe(200);
    const rows = page.text.split("<tr>");
    const v2 = visibleText(rows.find((r) => r.includes(">v2<"))!);
    expect(v2).toContain("002-shop");
    expect(v2).toContain("active");
    expect(v2).toMatch(/\d+ breaking vs v1/);
    expect(rows.find((r) => r.includes(">v2<"))).toContain('href="/admin/projects/shop/contracts/2/changes"');
    expect(visibleText(rows.find((r) => r.includes(">v1<"))!)).toContain("first version");

    const snapshot = rows.find((r) => r.includes("feedface0001"))!;
    expect(visibleText(snapshot)).toContain("#1");
    expect(snapshot).toContain('badge bad">rejected');
    expect(snapshot).toContain(`href="/admin/projects/shop/verdicts/${snapshotVerdict}"`);
    expect(snapshot).toContain(`href="/admin/projects/shop/snapshots/${snapshotId}/document"`);
    expect(visibleText(rows.find((r) => r.includes("badbeef0002"))!)).toContain("error TS2304: Cannot find name 'x'.");
  });

  it("shows storage against the quota and per project with its retention on the projects page", async () => {
    const ana = await signedIn("ana");
    const list = await ana.get("/admin/projects");
    const storage = list.text.slice(list.text.indexOf('id="storage"'));
    // Other test files change acme's quota and retention: the figures are checked for their form here, and for their
    // values in test/worker/contracts-api/storage-quota.test.ts (an organization of its own).
    expect(visibleText(storage)).toMatch(/of quota .* of [\d.]+ [KMGT]iB: records .*, documents /);
    const shop = visibleText(storage.split("<tr>").find((r) => r.includes(">shop<"))!);
    expect(shop).toMatch(/\d+ days, newest \d+ per branch/);
    expect(shop).toMatch(/shop\s*1\s/);
  });

  it("answers 404 for a project the organization does not have, and for a name that cannot be one", async () => {
    const ana = await signedIn("ana");
    expect((await ana.get("/admin/projects/nothing-here")).status).toBe(404);
    expect((await ana.get("/admin/projects/Not%20A%20Name")).status).toBe(404);
    expect((await ana.get("/admin/projects/shop/verdicts/999999")).status).toBe(404);
    // Another organization's administrator does not see acme's project, verdict or documents.
    const gus = await signedIn("gus");
    expect((await gus.get("/admin/projects/shop")).status).toBe(404);
    expect((await gus.get(`/admin/projects/shop/verdicts/${snapshotVerdict}`)).status).toBe(404);
    expect((await gus.get("/admin/projects/shop/contracts/1/document")).status).toBe(404);
  });

  it("never shows a contract with no operations as a green approval", async () => {
    const ana = await signedIn("ana");
    const list = await ana.get("/admin/projects");
    const hollow = list.text.split("<tr>").find((r) => r.includes(">hollow<"))!;
    expect(hollow).not.toContain('badge ok">approved');
    expect(hollow).toContain('badge warn">no operations');
    const page = await ana.get("/admin/projects/hollow");
    expect(page.text).not.toContain('badge ok">approved');
    expect(page.text).toContain('badge warn">0 operations');
    const verdictLink = /href="(\/admin\/projects\/hollow\/verdicts\/\d+)"/.exec(page.text)![1]!;
    const verdict = await ana.get(verdictLink);
    expect(verdict.text).not.toContain('badge ok">approved');
    expect(visibleText(verdict.text)).toContain("has no operations, so this verdict checked nothing");
  });
});

describe("verdict page", () => {
  it("groups the violations by rule with severity and location, and shows the Markdown as escaped text", async () => {
    const ana = await signedIn("ana");
    const page = await ana.get(`/admin/projects/shop/verdicts/${snapshotVerdict}`);
    expect(page.status).toBe(200);
    const text = visibleText(page.text);
    expect(text).toMatch(new RegExp(`snapshot 1 of shop \\(id ${snapshotId}\\) ?, commit feedface0001 on main`));
    expect(page.text).toContain('badge bad">rejected');
    const group = page.text.split('<section class="rule-group"').find((s) => s.includes(">undocumented-operation<"))!;
    expect(group).toBeDefined();
    expect(group).toContain('badge bad">error');
    expect(visibleText(group)).toContain("GET /x<img src=x onerror=alert(1)>");
    // The Markdown report is text in a <pre>: the markup from the document is escaped, never HTML.
    const markdown = /<pre class="markdown"[^>]*>([\s\S]*?)<\/pre>/.exec(page.text)![1]!;
    expect(markdown).toContain("## Arbiter conformance: ❌ Rejected");
    expect(markdown).toContain("&#60;img src&#61;x");
    expect(page.text).not.toMatch(/<img src=x/);
  });

  it("shows a contract version's changes against the version it replaced", async () => {
    const page = await (await signedIn("ana")).get("/admin/projects/shop/contracts/2/changes");
    expect(page.status).toBe(200);
    const text = visibleText(page.text);
    expect(text).toContain("Contract v2 of shop: changes since v1");
    expect(page.text).toMatch(/badge bad">\d+ breaking/);
    expect(text).toContain("GET /orders/{id}");
    expect((await (await signedIn("ana")).get("/admin/projects/shop/contracts/1/changes")).status).toBe(404);
  });
});

describe("downloads", () => {
  it("streams stored documents and verdict reports as attachments to administrators of the organization", async () => {
    const ana = await signedIn("ana");
    const contract = await ana.get("/admin/projects/shop/contracts/1/document");
    expect(contract.status).toBe(200);
    expect(contract.response.headers.get("content-disposition")).toBe('attachment; filename="shop-contract-v1.json"');
    expect(contract.response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(JSON.parse(contract.text)).toEqual(ordersContract());

    const snapshot = await ana.get(`/admin/projects/shop/snapshots/${snapshotId}/document`);
    expect(snapshot.response.headers.get("content-disposition")).toBe(
      `attachment; filename="shop-snapshot-1-id${snapshotId}.json"`,
    );
    expect(snapshot.text).toContain("onerror");

    const markdown = await ana.get(`/admin/projects/shop/verdicts/${snapshotVerdict}/report.markdown`);
    expect(markdown.response.headers.get("content-type")).toContain("text/markdown");
    expect(markdown.text).toContain(`snapshot 1 of shop (id ${snapshotId}, commit feedface0001)`);
    const junit = await ana.get(`/admin/projects/shop/verdicts/${snapshotVerdict}/report.junit`);
    expect(junit.text).toContain("<testsuite");
    expect((await ana.get(`/admin/projects/shop/verdicts/${snapshotVerdict}/report.exe`)).status).toBe(404);
  });

  it("refuses members and signed-out browsers", async () => {
    const mia = await signedIn("mia");
    expect((await mia.get("/admin/projects/shop/contracts/1/document")).status).toBe(403);
    const signedOut = await browserFetch(new CookieJar(), "/admin/projects/shop/contracts/1/document");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toContain("/signin?return=");
  });
});

describe("pictures", () => {
  it("the project page draws the verdict history and the verdict page the violations by operation and rule, as escaped inline SVG", async () => {
    const ana = await signedIn("ana");
    const project = (await ana.get("/admin/projects/shop")).text;
    const history = /<svg role="img"[\s\S]*?<\/svg>/.exec(project)?.[0] ?? "";
    expect(history).toContain("<title");
    expect(visibleText(history)).toContain("Verdict history of the latest snapshots");
    expect(visibleText(history)).toMatch(
      /1 snapshots from #1 to #1: 0 approved, 1 rejected\. By contract version: v2: 0 approved, 1 rejected\./,
    );
    expect(history).toContain(`stroke="#b42318"`);
    const verdict = (await ana.get(`/admin/projects/shop/verdicts/${snapshotVerdict}`)).text;
    const bars = /<svg role="img"[\s\S]*?<\/svg>/.exec(verdict)?.[0] ?? "";
    expect(visibleText(bars)).toContain("Violations by operation and rule");
    expect(visibleText(bars)).toMatch(/GET \/orders\/\{id\} · undocumented-operation/);
    // The hostile path from the snapshot is text in the picture, never markup.
    expect(bars).not.toContain("<img");
    expect(bars).toContain("&#60;img");
    expect(project + verdict).not.toMatch(/<script/i);
  });
});
