// One organization never reaches another's projects, keys or documents: the organization comes from the token
// or CI key only, so every route answers as if the other organization's data did not exist. Run for a seeded
// organization (globex) and for one the operator created at runtime (src/directory/).
import { beforeAll, describe, expect, it } from "vitest";
import { operator } from "../directory/helpers";
import { call, callJson, createKey } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { conformingSnapshot, ordersContract, text, violatingSnapshot } from "./fixtures";

const OTHERS = [
  { label: "globex (seeded)", organizationId: undefined },
  { label: "hooli (created at runtime)", organizationId: "hooli" },
] as const;

let ana: Caller;
let snapshotId: number;
let verdictId: number;

beforeAll(async () => {
  ana = restPrincipal("ana", "keys.admin contracts.read contracts.write snapshots.write");
  expect(
    (await operator("POST", "/organizations", { id: "hooli", name: "Hooli", emailDomains: ["hooli.example"] })).status,
  ).toBe(201);
  expect(
    (await callJson(ana, "POST", "/projects/orders/contracts?label=acme-only", text(ordersContract()))).status,
  ).toBe(201);
  const snapshot = await callJson(ana, "POST", "/projects/orders/snapshots?commit=acme1", text(violatingSnapshot()));
  snapshotId = snapshot.body.snapshot.id;
  verdictId = snapshot.body.verdictId;
  await callJson(ana, "POST", "/projects/orders/builds", { commit: "acme2", log: "acme secret build log" });
});

describe.each(OTHERS)("cross-organization access from $label", ({ organizationId }) => {
  let gus: Caller;
  let gusKey: string;
  beforeAll(async () => {
    gus = restPrincipal("gus", "keys.admin contracts.read contracts.write snapshots.write", {
      ...(organizationId ? { organizationId } : {}),
    });
    gusKey = (
      await createKey(gus, { projects: ["*"], scopes: ["contracts.read", "contracts.write", "snapshots.write"] })
    ).secret;
  });

  const reads = () => [
    "/projects/orders",
    "/projects/orders/contracts",
    "/projects/orders/contracts/active",
    "/projects/orders/contracts/1",
    "/projects/orders/contracts/1/document",
    "/projects/orders/snapshots",
    "/projects/orders/snapshots/latest",
    `/projects/orders/snapshots/${snapshotId}`,
    `/projects/orders/snapshots/${snapshotId}/document`,
    "/projects/orders/builds",
    "/projects/orders/verdicts",
    `/projects/orders/verdicts/${verdictId}`,
  ];

  it("finds nothing of acme with globex's OAuth token or CI key", async () => {
    for (const credential of [gus, gusKey]) {
      expect((await callJson(credential, "GET", "/projects")).body.projects).toEqual([]);
      for (const path of reads()) {
        const response = await call(credential, "GET", path);
        const body = await response.text();
        expect([404], `${path} answered ${response.status}`).toContain(response.status);
        expect(body).not.toContain("acme");
        expect(body).not.toContain("openapi");
      }
    }
  });

  it("refuses globex's writes into acme's project as unknown", async () => {
    const snapshot = await callJson(gusKey, "POST", "/projects/orders/snapshots?commit=g1", text(conformingSnapshot()));
    expect(snapshot.status).toBe(404);
    expect(snapshot.body.error.code).toBe("unknown_project");
    expect((await callJson(gus, "POST", "/projects/orders/builds", { commit: "g2" })).status).toBe(404);
    expect((await callJson(gus, "POST", "/projects/orders/contracts/1/activate")).status).toBe(404);
  });

  it("gives globex its own project of the same name, invisible to acme", async () => {
    const own = await callJson(
      gus,
      "POST",
      "/projects/orders/contracts",
      text(ordersContract({ info: { title: "Globex orders", version: "7" } })),
    );
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ projectCreated: true, contract: { version: 1, label: null } });
    const acme = await callJson(ana, "GET", "/projects/orders/contracts");
    expect(acme.body.contracts).toHaveLength(1);
    expect(acme.body.contracts[0].label).toBe("acme-only");
    const globexSnapshots = await callJson(gus, "GET", "/projects/orders/snapshots");
    expect(globexSnapshots.body.snapshots).toEqual([]);
    const globexBuilds = await callJson(gus, "GET", "/projects/orders/builds");
    expect(JSON.stringify(globexBuilds.body)).not.toContain("acme secret build log");
  });

  it("ignores any organization named in the URL or body", async () => {
    const viaQuery = await callJson(gus, "GET", "/projects/orders/snapshots?organization=acme&organizationId=acme");
    expect(viaQuery.body.snapshots).toEqual([]);
    const viaBody = await callJson(gus, "POST", "/keys", {
      name: "x",
      projects: ["*"],
      scopes: ["contracts.read"],
      organizationId: "acme",
    });
    expect(viaBody.status).toBe(400);
  });
});
