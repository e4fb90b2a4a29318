/**
 * Arbiter arbitrates itself: its REST contract (src/api/openapi.json) against a snapshot generated from the
 * route table (src/api/route-snapshot.ts), with Arbiter's own engine and the bundled policies.
 */
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import contract from "../../../src/api/openapi.json";
import { apiRoutes } from "../../../src/api";
import { ROUTE_DOCS } from "../../../src/api/route-docs";
import { routeKey, snapshotFromRoutes } from "../../../src/api/route-snapshot";
import type { ApiRoute } from "../../../src/api/router";
import { getConformanceConfig } from "../../../src/engine/verdict/config";
import { checkConformance, checkConstitution } from "../../../src/engine/engine";
import type { Verdict } from "../../../src/engine/types";
import { BASE } from "../helpers";
import { callJson, contractProblems, restToken } from "../contracts-api/api-helpers";
import { restPrincipal } from "../harness";

const document = contract as Record<string, unknown>;

function errors(verdict: Verdict): string[] {
  return verdict.violations
    .filter((violation) => violation.severity === "error")
    .map((violation) => `${violation.rule}: ${violation.message}`);
}

function verdictFor(routes: readonly ApiRoute[], docs = ROUTE_DOCS): Verdict {
  const { snapshot, undocumented } = snapshotFromRoutes(document, routes, docs);
  expect(undocumented).toEqual([]);
  return checkConformance(document, snapshot, getConformanceConfig());
}

describe("the REST contract", () => {
  it("holds the constitution in policies/ with no error and no warning", () => {
    const verdict = checkConstitution(document, getConformanceConfig());
    expect(verdict.violations.map((violation) => `${violation.rule}: ${violation.message}`)).toEqual([]);
  });

  it("every route has a RouteDoc, and every RouteDoc a route", () => {
    const keys = apiRoutes.map(routeKey);
    expect(keys.filter((key) => !ROUTE_DOCS[key])).toEqual([]);
    expect(Object.keys(ROUTE_DOCS).filter((key) => !keys.includes(key))).toEqual([]);
  });

  it("the route table conforms to the contract", () => {
    const verdict = verdictFor(apiRoutes);
    expect(errors(verdict)).toEqual([]);
    expect(
      verdict.violations.filter((violation) => violation.severity === "warning").map((violation) => violation.message),
    ).toEqual([]);
  });

  it("a contract operation without its route is a missing-operation", () => {
    const verdict = verdictFor(apiRoutes.filter((route) => routeKey(route) !== "GET /api/v1/keys"));
    expect(verdict.violations).toContainEqual(
      expect.objectContaining({ rule: "missing-operation", severity: "error" }),
    );
  });

  it("a route added without its contract entry is an undocumented-operation", () => {
    const extra: ApiRoute = {
      method: "GET",
      path: "/api/v1/secret-export",
      requiredScopes: ["audit.read"],
      handle: async () => new Response(null),
    };
    const docs = {
      ...ROUTE_DOCS,
      [routeKey(extra)]: { operationId: "secretExport", ok: [200, ["application/json"]] as const, errors: [] },
    };
    const verdict = verdictFor([...apiRoutes, extra], docs);
    expect(verdict.violations).toContainEqual(
      expect.objectContaining({ rule: "undocumented-operation", severity: "error" }),
    );
  });

  it("a route whose scopes or answers drift from the contract fails", () => {
    const widened = apiRoutes.map((route) =>
      routeKey(route) === "GET /api/v1/projects" ? { ...route, requiredScopes: ["contracts.write"] } : route,
    );
    expect(verdictFor(widened).violations).toContainEqual(
      expect.objectContaining({ rule: "security-requirements", severity: "error" }),
    );
    const key = "DELETE /api/v1/keys/:id";
    const fewer = { ...ROUTE_DOCS, [key]: { ...ROUTE_DOCS[key]!, errors: [400] } };
    expect(verdictFor(apiRoutes, fewer).violations).toContainEqual(
      expect.objectContaining({ rule: "missing-status-code", severity: "error" }),
    );
  });
});

describe("GET /api/v1/openapi.json", () => {
  it("serves the contract to any valid token, with this deployment as its server", async () => {
    const token = await restToken("ana", "contracts.read");
    const response = await SELF.fetch(`${BASE}/api/v1/openapi.json`, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ ...document, servers: [{ url: BASE, description: "This deployment" }] });
  });

  it("needs a credential like every /api path", async () => {
    const response = await SELF.fetch(`${BASE}/api/v1/openapi.json`);
    expect(response.status).toBe(401);
  });
});

describe("real answers against the contract (the REST tests' callJson)", () => {
  it("accepts what the contract allows and names what it does not", () => {
    expect(
      contractProblems("GET", "/api/v1/projects", 200, "application/json", { projects: [], nextAfter: null }),
    ).toEqual([]);
    expect(
      contractProblems("GET", "/api/v1/projects", 200, "application/json", { projects: "none", nextAfter: null }).join(
        " ",
      ),
    ).toMatch(/projects/);
    expect(contractProblems("GET", "/api/v1/projects", 418, "application/json", {})).toEqual([
      "the contract declares no 418 for GET /api/v1/projects",
    ]);
    expect(contractProblems("GET", "/api/v1/projects", 404, "application/json", {}).join(" ")).toMatch(
      /declares no 404|answered application\/json/,
    );
    expect(contractProblems("GET", "/api/v1/keys", 400, "application/json", {})[0]).toContain(
      "the contract declares application/problem+json",
    );
    expect(contractProblems("GET", "/api/v1/nothing", 200, "application/json", {})).toEqual([
      "the contract has no operation GET /api/v1/nothing",
    ]);
  });

  it("callJson fails a test whose answer the contract does not allow, unless it opts out with a reason", async () => {
    const token = restPrincipal("ana", "contracts.read");
    await expect(callJson(token, "GET", "/not-a-route")).rejects.toThrow(/does not allow/);
    expect(
      (
        await callJson(token, "GET", "/not-a-route", undefined, undefined, {
          unchecked: "an unknown route is not in any contract",
        })
      ).status,
    ).toBe(404);
    const errorAnswer = await callJson(token, "GET", "/projects?limit=0");
    expect(errorAnswer.status).toBe(400);
  });
});
