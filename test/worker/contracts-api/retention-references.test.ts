// Retention keeps what an accepted break names (docs/storage.md "Retention"): the snapshot it was accepted against
// and the last snapshot whose verdict it turned into "accepted" stay, with their verdicts, however old; the other
// expired snapshots of the project go.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { breakFingerprint } from "../../../src/engine/verdict/acceptance";
import { operator } from "../directory/helpers";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson } from "./api-helpers";
import { conformingSnapshot, ordersContract, text, violatingSnapshot } from "./fixtures";
import { projectStore } from "./stores";

const DAY = 86_400_000;
const store = () => projectStore("acme", "refs");
let ana: Caller;

async function snapshot(document: unknown, commit: string): Promise<number> {
  const answer = await callJson(ana, "POST", `/projects/refs/snapshots?commit=${commit}&branch=main`, text(document));
  expect(answer.status).toBe(201);
  return answer.body.snapshot.id;
}

beforeAll(async () => {
  ana = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
  expect((await callJson(ana, "POST", "/projects/refs/contracts", text(ordersContract()))).status).toBe(201);
});

describe("retention and accepted breaks", () => {
  it("keeps the snapshots an accepted break names, and deletes the other expired ones", async () => {
    const against = await snapshot(violatingSnapshot(), "ref0001");
    const accepted = await callJson(ana, "POST", "/projects/refs/accepted-breaks", {
      fingerprint: breakFingerprint("missing-operation", "GET /orders/{id}"),
      reason: "getOrder moves to the v2 service",
      owner: "team-orders",
      expiresAt: new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10),
    });
    expect(accepted.status).toBe(201);
    const matched = await snapshot(violatingSnapshot(), "ref0002");
    const plain = await snapshot(conformingSnapshot(), "ref0003");
    const newest = await snapshot(conformingSnapshot(), "ref0004");
    await runInDurableObject(store(), (_instance, state) => {
      for (const id of [against, matched, plain, newest])
        state.storage.sql.exec(
          "UPDATE snapshots SET uploaded_at = ? WHERE id = ?",
          new Date(Date.now() - 40 * DAY).toISOString(),
          id,
        );
    });
    const listed = (await callJson(ana, "GET", "/projects/refs/accepted-breaks")).body.acceptedBreaks;
    expect(listed[0].lastMatchedSnapshotId).toBe(matched);

    expect(
      (await operator("PATCH", "/organizations/acme", { retention: { snapshotDays: 30, keepPerBranch: 1 } })).status,
    ).toBe(200);
    expect(await runDurableObjectAlarm(store())).toBe(true);
    const kept = (await callJson(ana, "GET", "/projects/refs/snapshots")).body.snapshots.map(
      (s: { id: number }) => s.id,
    );
    expect(kept.sort((a: number, b: number) => a - b)).toEqual([against, matched, newest]);
    // The break's evidence still opens, verdict included.
    const evidence = await callJson(ana, "GET", `/projects/refs/snapshots/${matched}`);
    expect(evidence.status).toBe(200);
    expect(evidence.body.verdict.approved).toBe(true);
    expect((await call(ana, "GET", `/projects/refs/snapshots/${plain}`)).status).toBe(404);
    expect((await operator("PATCH", "/organizations/acme", { retention: null })).status).toBe(200);
  });
});
