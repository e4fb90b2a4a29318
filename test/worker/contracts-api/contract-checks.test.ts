/**
 * The checks a contract upload makes before anything is stored: unknown fixed fields (typos) and contracts with
 * no operations are refused; a contract that breaks the constitution is stored, made active and reported.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { conformingSnapshot, ordersContract, text } from "./fixtures";

let developer: Caller;

beforeAll(async () => {
  developer = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
});

type Paths = Record<string, Record<string, unknown>>;

function withTypo(edit: (document: Record<string, unknown> & { paths: Paths }) => void): string {
  const document = structuredClone(ordersContract()) as Record<string, unknown> & { paths: Paths };
  edit(document);
  return text(document);
}

const typos: { name: string; document: string; path: string; suggestion: string }[] = [
  {
    name: "`gett:` instead of `get:` in a path item",
    document: withTypo((document) => {
      const item = document.paths["/orders/{id}"]!;
      item.gett = item.get;
      delete item.get;
    }),
    path: "/paths/~1orders~1{id}/gett",
    suggestion: "did you mean `get`?",
  },
  {
    name: "`parameter:` instead of `parameters:` in an operation",
    document: withTypo((document) => {
      const get = document.paths["/orders/{id}"]!.get as Record<string, unknown>;
      get.parameter = get.parameters;
      delete get.parameters;
    }),
    path: "/paths/~1orders~1{id}/get/parameter",
    suggestion: "did you mean `parameters`?",
  },
  {
    name: "`path:` instead of `paths:` at the top of a 3.1 document",
    document: withTypo((document) => {
      (document as Record<string, unknown>).path = document.paths;
      delete (document as Record<string, unknown>).paths;
    }),
    path: "/path",
    suggestion: "did you mean `paths`?",
  },
];

describe("contract upload checks", () => {
  for (const typo of typos) {
    it(`refuses ${typo.name} with 422, the field's path and the closest name, and stores nothing`, async () => {
      const project = `typo-${typos.indexOf(typo)}`;
      const response = await callJson(developer, "POST", `/projects/${project}/contracts`, typo.document);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe("invalid_document");
      const problem = response.body.error.details.problems.find((entry: { path: string }) => entry.path === typo.path);
      expect(problem?.message).toContain(typo.suggestion);
      expect(problem?.message).toContain("Allowed: ");
      expect(response.body.error.message).toContain(typo.path);
      expect((await callJson(developer, "GET", `/projects/${project}`)).status).toBe(404);
    });
  }

  it("refuses the same typo in a snapshot", async () => {
    expect(
      (await callJson(developer, "POST", "/projects/typo-snapshot/contracts", text(ordersContract()))).status,
    ).toBe(201);
    const snapshot = conformingSnapshot() as { paths: Paths };
    const item = snapshot.paths["/orders"]!;
    item.gett = item.get;
    delete item.get;
    const response = await callJson(developer, "POST", "/projects/typo-snapshot/snapshots?commit=abc", text(snapshot));
    expect(response.status).toBe(422);
    expect(response.body.error.details.problems).toContainEqual({
      path: "/paths/~1orders/gett",
      message: expect.stringContaining("did you mean `get`?"),
    });
    expect((await callJson(developer, "GET", "/projects/typo-snapshot/snapshots")).body.snapshots).toEqual([]);
  });

  it("refuses a contract with no operations unless the upload says it is intended (?allowEmpty=true)", async () => {
    const webhooksOnly = text({
      openapi: "3.1.0",
      info: { title: "Order events", version: "1" },
      webhooks: {
        orderPaid: {
          post: {
            requestBody: { content: { "application/json": { schema: { type: "object" } } } },
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    const refused = await callJson(developer, "POST", "/projects/events/contracts", webhooksOnly);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.problems).toEqual([
      { path: "", message: expect.stringContaining("declares no operations") },
    ]);
    expect(refused.body.error.details.problems[0].message).toContain("?allowEmpty=true");
    expect((await callJson(developer, "GET", "/projects/events")).status).toBe(404);

    const emptyPaths = await callJson(
      developer,
      "POST",
      "/projects/events/contracts",
      text({ ...ordersContract(), paths: {} }),
    );
    expect(emptyPaths.status).toBe(422);
    expect(emptyPaths.body.error.details.problems).toEqual([
      { path: "/paths", message: expect.stringContaining("`paths` holds no operation") },
    ]);

    const accepted = await callJson(developer, "POST", "/projects/events/contracts?allowEmpty=true", webhooksOnly);
    expect(accepted.status).toBe(201);
    expect(accepted.body.contract).toMatchObject({ version: 1, active: true, operationCount: 0 });

    const badFlag = await callJson(developer, "POST", "/projects/events/contracts?allowEmpty=yes", webhooksOnly);
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error.message).toContain("allowEmpty");
  });

  it("stores and activates a contract that breaks the constitution, reporting it in words about the contract", async () => {
    const internal = ordersContract({
      paths: {
        ...(ordersContract().paths as Paths),
        "/internal/jobs": { get: { responses: { "200": { description: "ok" } } } },
      },
    });
    const response = await callJson(developer, "POST", "/projects/unconstitutional/contracts", text(internal));
    expect(response.status).toBe(201);
    expect(response.body.contract).toMatchObject({ version: 1, active: true });
    expect(response.body.verdict.approved).toBe(false);
    expect(response.body.verdict.violations).toContainEqual(
      expect.objectContaining({ rule: "forbidden-path-prefix", severity: "error" }),
    );
    expect(response.body.markdown).toContain("## Arbiter constitution check of the contract: ❌ Rejected");
    expect(response.body.markdown).toContain("it is stored and active all the same");
    expect(response.body.markdown).not.toMatch(/implementation/i);
    expect(
      (await callJson(developer, "GET", "/projects/unconstitutional/contracts/active")).body.contract.version,
    ).toBe(1);

    const clean = await callJson(developer, "POST", "/projects/constitutional/contracts", text(ordersContract()));
    expect(clean.body.markdown).toContain("The contract follows the organization's constitution: no violations.");
    expect(clean.body.markdown).not.toMatch(/implementation/i);
  });
});
