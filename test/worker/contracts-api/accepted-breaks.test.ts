// Accepted breaks (docs/verdicts.md "Accepting a break"): a team accepts a known breaking change of a project with a
// reason, an owner and an expiry; later verdicts report the change as "accepted", naming the acceptance, in every
// format; a rewritten document keeps the fingerprint; the list says which acceptances no longer match, expired or
// were revoked; bad input is refused with what to send.
import { beforeAll, describe, expect, it } from "vitest";
import { breakFingerprint } from "../../../src/engine/verdict/acceptance";
import { operator } from "../directory/helpers";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson, createKey, storedAuditRecords } from "./api-helpers";
import { conformingSnapshot, ordersContract, text, violatingSnapshot } from "./fixtures";

const ORG = "accept-co";
let ana: Caller;
let reader: Caller;

const MISSING = { rule: "missing-operation", location: "GET /orders/{id}" };
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function upload(document: unknown, commit: string) {
  const answer = await callJson(ana, "POST", `/projects/orders/snapshots?commit=${commit}`, text(document));
  expect(answer.status).toBe(201);
  return answer.body;
}

async function acceptances() {
  const answer = await callJson(ana, "GET", "/projects/orders/accepted-breaks");
  expect(answer.status).toBe(200);
  return answer.body.acceptedBreaks as Array<Record<string, any>>;
}

beforeAll(async () => {
  expect(
    (await operator("POST", "/organizations", { id: ORG, name: "Accept Co", emailDomains: ["accept.example"] })).status,
  ).toBe(201);
  ana = restPrincipal("ana", "contracts.read contracts.write snapshots.write keys.admin", { organizationId: ORG });
  reader = restPrincipal("mia", "contracts.read snapshots.write", { organizationId: ORG });
  expect((await callJson(ana, "POST", "/projects/orders/contracts", text(ordersContract()))).status).toBe(201);
});

describe("accepting a break", () => {
  let acceptanceId = "";

  it("names every error of a verdict by a fingerprint", async () => {
    const rejected = await upload(violatingSnapshot(), "r1");
    expect(rejected.verdict.approved).toBe(false);
    const error = rejected.verdict.violations.find((v: any) => v.rule === MISSING.rule);
    expect(error).toMatchObject({ severity: "error", location: MISSING.location });
    expect(error.fingerprint).toBe(breakFingerprint(MISSING.rule, MISSING.location));
  });

  it("accepts it by fingerprint alone (looked up in the latest verdict), audited", async () => {
    const fingerprint = breakFingerprint(MISSING.rule, MISSING.location);
    const answer = await callJson(ana, "POST", "/projects/orders/accepted-breaks", {
      fingerprint,
      reason: "getOrder moves to the v2 service this quarter",
      owner: "team-orders",
      expiresAt: inDays(30),
    });
    expect(answer.status).toBe(201);
    expect(answer.body.acceptedBreak).toMatchObject({
      fingerprint,
      ...MISSING,
      owner: "team-orders",
      createdBy: "ana",
      state: "in-force",
      revokedAt: null,
    });
    acceptanceId = answer.body.acceptedBreak.id;
    const records = await storedAuditRecords(ORG, 0);
    expect(records.some((record) => record.reason?.includes(`accepted ${acceptanceId}`))).toBe(true);
  });

  it("turns the error into accepted in the next verdict, in every format", async () => {
    const next = await upload(violatingSnapshot(), "r2");
    expect(next.verdict.approved).toBe(true);
    const accepted = next.verdict.violations.find((v: any) => v.rule === MISSING.rule);
    expect(accepted).toMatchObject({
      severity: "accepted",
      acceptance: { id: acceptanceId, owner: "team-orders", reason: "getOrder moves to the v2 service this quarter" },
    });
    expect(next.verdict.summary).toContainEqual({ rule: MISSING.rule, severity: "accepted", count: 1 });

    const id = next.snapshot.id;
    const markdown = await (await call(ana, "GET", `/projects/orders/snapshots/${id}?format=markdown`)).text();
    expect(markdown).toContain("| Accepted | `missing-operation` |");
    expect(markdown).toContain("1 accepted. No errors, so it is approved.");
    expect(markdown).toContain(String.raw`accepted by team\-orders until`);
    const sarif = JSON.parse(await (await call(ana, "GET", `/projects/orders/snapshots/${id}?format=sarif`)).text());
    const result = sarif.runs[0].results.find((r: any) => r.ruleId === MISSING.rule);
    expect(result.suppressions[0]).toMatchObject({ kind: "external", status: "accepted" });
    expect(result.suppressions[0].justification).toContain(acceptanceId);
    expect(result.partialFingerprints["arbiterBreak/v1"]).toBe(accepted.fingerprint);
    const junit = await (await call(ana, "GET", `/projects/orders/snapshots/${id}?format=junit`)).text();
    expect(junit).toContain('failures="0"');
    expect(junit).toContain("accepted: ");
    const github = await (await call(ana, "GET", `/projects/orders/snapshots/${id}?format=github`)).text();
    // Workflow-command properties escape ":" as %3A.
    expect(github).toMatch(/^::notice title=accepted%3A missing-operation at GET \/orders\/\{id\}::.*team-orders/m);
    expect(github).not.toMatch(/^::error /m);
  });

  it("keeps matching a reformatted, reordered document", async () => {
    const reordered = violatingSnapshot() as { paths: Record<string, unknown> };
    reordered.paths = Object.fromEntries(Object.entries(reordered.paths).reverse());
    const answer = await callJson(
      ana,
      "POST",
      "/projects/orders/snapshots?commit=r3",
      JSON.stringify(reordered), // one line, other key order
    );
    expect(answer.body.verdict.approved).toBe(true);
    const listed = (await acceptances()).find((a) => a.id === acceptanceId)!;
    expect(listed.lastMatchedSnapshotId).toBe(answer.body.snapshot.id);
    expect(listed.state).toBe("in-force");
  });

  it("is applied by a draft check and refused a second time while in force", async () => {
    const draft = await callJson(ana, "POST", "/projects/orders/drafts", text(violatingSnapshot()));
    expect(draft.status).toBe(200);
    expect(draft.body.verdict.approved).toBe(true);
    const again = await callJson(ana, "POST", "/projects/orders/accepted-breaks", {
      ...MISSING,
      reason: "again",
      expiresAt: inDays(3),
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("already_accepted");
    expect(again.body.detail).toContain(acceptanceId);
  });

  it("is listed as not matching once the latest snapshot no longer has the change", async () => {
    await upload(conformingSnapshot(), "fixed");
    expect((await acceptances()).find((a) => a.id === acceptanceId)!.state).toBe("not-matching");
  });

  it("ends when revoked: the change is an error again, the record stays listed", async () => {
    const revoked = await callJson(ana, "DELETE", `/projects/orders/accepted-breaks/${acceptanceId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.acceptedBreak).toMatchObject({ state: "revoked", revokedBy: "ana" });
    expect((await upload(violatingSnapshot(), "r4")).verdict.approved).toBe(false);
    expect((await acceptances()).map((a) => a.state)).toEqual(["revoked"]);
  });

  it("ends at its expiry: the next verdict is rejected again, and a stored verdict is not reused", async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const answer = await callJson(ana, "POST", "/projects/orders/accepted-breaks", {
      ...MISSING,
      reason: "a short grace",
      expiresAt: soon,
    });
    expect(answer.status).toBe(201);
    const approved = await upload(violatingSnapshot(), "r5");
    expect(approved.verdict.approved).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await upload(violatingSnapshot(), "r6")).verdict.approved).toBe(false);
    expect((await acceptances())[0]!.state).toBe("expired");
  });
});

describe("refusals", () => {
  const post = (caller: Caller, body: object) => callJson(caller, "POST", "/projects/orders/accepted-breaks", body);

  it("says what to send for a bad expiry, a missing change or an unknown fingerprint", async () => {
    const past = await post(ana, { ...MISSING, reason: "late", expiresAt: "2020-01-01" });
    expect(past.status).toBe(400);
    expect(past.body.detail).toContain("not in the future");
    const far = await post(ana, { ...MISSING, reason: "forever", expiresAt: inDays(400) });
    expect(far.status).toBe(400);
    expect(far.body.detail).toContain("366 days");
    const word = await post(ana, { ...MISSING, reason: "soon", expiresAt: "next week" });
    expect(word.status).toBe(400);
    expect(word.body.detail).toContain("2027-03-31");
    const nothing = await post(ana, { reason: "which one?", expiresAt: inDays(2) });
    expect(nothing.status).toBe(400);
    expect(nothing.body.detail).toContain("fingerprint");
    const unknown = await post(ana, { fingerprint: "bc-0000000000000000", reason: "typo", expiresAt: inDays(2) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("unknown_fingerprint");
    const extra = await post(ana, { ...MISSING, reason: "ok", expiresAt: inDays(2), severity: "info" });
    expect(extra.status).toBe(400);
    expect((await acceptances()).length).toBe(2);
  });

  it("needs contracts.write, and a CI key only reaches its projects", async () => {
    const member = await post(reader, { ...MISSING, reason: "mine", expiresAt: inDays(2) });
    expect(member.status).toBe(403);
    expect((await callJson(reader, "GET", "/projects/orders/accepted-breaks")).status).toBe(200);
    const { secret } = await createKey(ana, { projects: ["billing"], scopes: ["contracts.read", "contracts.write"] });
    const key = await post(secret, { ...MISSING, reason: "other project", expiresAt: inDays(2) });
    expect(key.status).toBe(403);
    expect(key.body.code).toBe("project_not_allowed");
    const revoke = await callJson(ana, "DELETE", "/projects/orders/accepted-breaks/ab-999");
    expect(revoke.status).toBe(404);
  });
});
