/**
 * Concurrent contract uploads to one project are queued in the organization's store, never refused: CI that
 * uploads 20 versions at once (through the Worker's front door, with a CI key, as CI does) gets 20 answers of 201,
 * versions 1..20 without a gap, and every version was compared with the version just before it, which only holds
 * when each comparison ran after its predecessor was recorded. Before the queue each upload compared outside the
 * store and retried on a stale comparison; some gave up with 409 "busy".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callJson, createKey } from "./api-helpers";
import { restPrincipal } from "../harness";
import { ordersContract, text } from "./fixtures";

const UPLOADS = 20;
let ci: string;

beforeAll(async () => {
  const admin = restPrincipal("ana", "keys.admin contracts.read contracts.write snapshots.write");
  ci = (await createKey(admin, { projects: ["queued"], scopes: ["contracts.write", "contracts.read"] })).secret;
});

describe("concurrent contract uploads to one project", () => {
  it(`queues ${UPLOADS} at once: all succeed, versions 1..${UPLOADS} contiguous, each compared with its predecessor`, async () => {
    const results = await Promise.all(
      Array.from({ length: UPLOADS }, (_, i) => callJson(ci, "POST", `/projects/queued/contracts?label=parallel-${i}`, text(ordersContract({ info: { title: "Orders", version: `9.${i}` } })))),
    );
    expect(results.map((result) => result.status)).toEqual(Array(UPLOADS).fill(201));
    const versions = results.map((result) => result.body.contract.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: UPLOADS }, (_, i) => i + 1));
    for (const result of results) {
      const { version, changes } = result.body.contract as { version: number; changes: { comparedWithVersion: number } | null };
      expect(changes?.comparedWithVersion ?? null).toBe(version === 1 ? null : version - 1);
    }
    const listed = await callJson(ci, "GET", "/projects/queued/contracts?limit=50");
    expect(listed.body.contracts.map((contract: { version: number }) => contract.version)).toEqual(Array.from({ length: UPLOADS }, (_, i) => UPLOADS - i));
    const labels = new Set(listed.body.contracts.map((contract: { label: string }) => contract.label));
    expect(labels.size).toBe(UPLOADS);
  });
});
