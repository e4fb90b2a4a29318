/**
 * One vocabulary for the contracts domain's failures (issue 34, step 3): every code the store and the services
 * answer with has one kind (src/contracts/services/failure.ts CONTRACT_FAILURE_KINDS), so REST's status and MCP's
 * classing come from the same row, and the same case carries the same code on both surfaces.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { FAILURE_CLASSES } from "../../../src/core/failure";
import { CONTRACT_FAILURE_KINDS } from "../../../src/contracts/services/failure";
import { restPrincipal, type Caller } from "../harness";
import { callJson } from "../contracts-api/api-helpers";
import { callTool, ciPrincipal, connectPrincipal, uploadContract, type Agent } from "./helpers";

const contract = {
  openapi: "3.1.0",
  info: { title: "Codes", version: "1.0.0" },
  paths: { "/ping": { get: { operationId: "ping", responses: { "200": { description: "ok" } } } } },
};

let agent: Agent;
let rest: Caller;

beforeAll(async () => {
  await uploadContract(ciPrincipal("dev"), "codes", contract);
  agent = await connectPrincipal("dev");
  rest = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
});

describe("the contracts domain's failure codes", () => {
  it("class each code once, as this fixed table says", () => {
    const statusOf = Object.fromEntries(
      Object.entries(CONTRACT_FAILURE_KINDS).map(([code, kind]) => [code, FAILURE_CLASSES[kind].status]),
    );
    expect(statusOf).toEqual({
      unknown_project: 404,
      no_active_contract: 404,
      unknown_contract: 404,
      unknown_key: 404,
      unknown_snapshot: 404,
      unknown_verdict: 404,
      no_snapshot: 404,
      missing_content: 409,
      busy: 409,
      already_accepted: 409,
      storage_quota_exceeded: 507,
      invalid_document: 422,
    });
  });

  it.each([
    { case: "a project that does not exist", project: "nowhere", version: undefined, code: "unknown_project" },
    { case: "a contract version that does not exist", project: "codes", version: 9, code: "unknown_contract" },
  ])("answer $case with the same code over REST and MCP", async ({ project, version, code }) => {
    const query = version === undefined ? "" : `?contractVersion=${version}`;
    const answered = await callJson(rest, "POST", `/projects/${project}/drafts${query}`, JSON.stringify(contract));
    expect(answered.status).toBe(FAILURE_CLASSES[CONTRACT_FAILURE_KINDS[code as "unknown_project"]].status);
    expect(answered.body.code).toBe(code);
    const result = await callTool(agent, "check_api_draft", {
      project,
      document: contract,
      ...(version === undefined ? {} : { contractVersion: version }),
    });
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ code, cannotVerify: code });
  });
});
