// Accepted breaks in the admin console: a verdict page shows each error's fingerprint; the project page accepts a
// break by it (CSRF-checked, one audit record, the same service as REST), lists it with its state and revokes it;
// a bad form comes back on the project page saying what to change, with what was typed.
import { beforeAll, describe, expect, it } from "vitest";
import { breakFingerprint } from "../../../src/engine/verdict/acceptance";
import { callJson } from "../contracts-api/api-helpers";
import { ordersContract, text, violatingSnapshot } from "../contracts-api/fixtures";
import { restPrincipal } from "../harness";
import { auditEvents, csrfFrom, signedIn, visibleText, type ConsoleBrowser } from "./console-helpers";

const PROJECT = "console-accepts";
const FINGERPRINT = breakFingerprint("missing-operation", "GET /orders/{id}");
let ana: ConsoleBrowser;
let verdictId: number;
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  const ci = restPrincipal("ana", "contracts.write snapshots.write contracts.read");
  expect((await callJson(ci, "POST", `/projects/${PROJECT}/contracts`, text(ordersContract()))).status).toBe(201);
  const snapshot = await callJson(
    ci,
    "POST",
    `/projects/${PROJECT}/snapshots?commit=c0ns0le`,
    text(violatingSnapshot()),
  );
  verdictId = snapshot.body.snapshot.verdictId;
  ana = await signedIn("ana");
});

describe("accepted breaks in the console", () => {
  it("shows each error's fingerprint on the verdict page", async () => {
    const page = await ana.get(`/admin/projects/${PROJECT}/verdicts/${verdictId}`);
    expect(visibleText(page.text)).toContain(`fingerprint ${FINGERPRINT}`);
  });

  it("accepts a break from the project page, lists it in force and revokes it, each audited", async () => {
    const page = await ana.get(`/admin/projects/${PROJECT}`);
    expect(visibleText(page.text)).toContain("No accepted breaks");
    const accepted = await ana.post("/admin/accepted-breaks", {
      csrf: csrfFrom(page.text),
      project: PROJECT,
      fingerprint: FINGERPRINT,
      reason: "the v2 service takes getOrder",
      owner: "team <orders>",
      expiresOn: inDays(10),
    });
    expect(accepted.status).toBe(303);
    expect(accepted.response.headers.get("location")).toBe(
      `/admin/projects/${PROJECT}?done=break-accepted#accepted-heading`,
    );
    const listed = await ana.get(`/admin/projects/${PROJECT}?done=break-accepted`);
    const shown = visibleText(listed.text);
    expect(shown).toContain("The break is accepted");
    expect(shown).toMatch(/ab-\d+ .*missing-operation GET \/orders\/\{id\} the v2 service takes getOrder/);
    expect(shown).toContain("in-force");
    expect(listed.text).toContain("team &#60;orders&#62;");
    expect(listed.text).not.toContain("team <orders>");
    const id = /name="id" value="(ab-\d+)"/.exec(listed.text)![1]!;

    const revoked = await ana.post("/admin/accepted-breaks/revoke", {
      csrf: csrfFrom(listed.text),
      project: PROJECT,
      id,
    });
    expect(revoked.status).toBe(303);
    expect(visibleText((await ana.get(`/admin/projects/${PROJECT}`)).text)).toContain("revoked");

    const records = await auditEvents("acme", { target: "POST /admin/accepted-breaks" });
    expect(records.filter((r) => r.outcome === "ok").length).toBeGreaterThanOrEqual(1);
    expect((await auditEvents("acme", { target: "POST /admin/accepted-breaks/revoke" })).length).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("answers a bad form on the project page with what to change, keeping what was typed", async () => {
    const page = await ana.get(`/admin/projects/${PROJECT}`);
    const refused = await ana.post("/admin/accepted-breaks", {
      csrf: csrfFrom(page.text),
      project: PROJECT,
      fingerprint: FINGERPRINT,
      reason: "too far ahead",
      owner: "",
      expiresOn: inDays(500),
    });
    expect(refused.status).toBe(400);
    expect(visibleText(refused.text)).toContain("366 days");
    expect(refused.text).toContain('value="too far ahead"');
    const noCsrf = await ana.post("/admin/accepted-breaks", { project: PROJECT, fingerprint: FINGERPRINT });
    expect(noCsrf.status).toBe(403);
  });
});
