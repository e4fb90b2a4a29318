// Policy files are validated at load; a broken one fails with a message naming the file and the field.
import { describe, expect, it } from "vitest";
import { PolicyError } from "../../src/policy/errors";
import { bundledPolicyFiles } from "../../src/policy/files";
import { getPolicy, grantableScopes, loadPolicy } from "../../src/policy/load";
import { loadRateLimitPolicy, quotaFor } from "../../src/ratelimit/policy";

function withFile(file: string, edit: (value: any) => void) {
  const copy = structuredClone(bundledPolicyFiles[file]);
  edit(copy);
  return { ...bundledPolicyFiles, [file]: copy };
}

function failure(fn: () => unknown): PolicyError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error("expected a PolicyError");
}

describe("policy loading", () => {
  it("loads the bundled policy", () => {
    const policy = getPolicy();
    expect(policy.scopeNames).toEqual(
      expect.arrayContaining([
        "orders.read",
        "orders.search",
        "orders.pii",
        "contracts.read",
        "contracts.write",
        "snapshots.write",
        "audit.read",
        "keys.admin",
        "clients.admin",
        "offline_access",
      ]),
    );
    expect(policy.baseline.mcp).toEqual(["orders.read", "contracts.read"]);
    expect(grantableScopes(policy, "member")).not.toContain("orders.pii");
    expect(grantableScopes(policy, "admin")).toContain("keys.admin");
  });

  it("names the file and field of a wrong type", () => {
    const error = failure(() => loadPolicy(withFile("scopes.json", (f) => (f.scopes["orders.read"].description = 42))));
    expect(error.message).toBe(
      "policies/scopes.json: scopes.orders.read.description: Invalid input: expected string, received number",
    );
  });

  it("names an unknown scope granted by a role", () => {
    const error = failure(() =>
      loadPolicy(withFile("organizations.json", (f) => f.roles.member.grantable.push("orders.everything"))),
    );
    expect(error.file).toBe("organizations.json");
    expect(error.field).toMatch(/^roles\.member\.grantable\.\d+$/);
    expect(error.message).toContain('unknown scope "orders.everything"');
  });

  it("names a development user in an unknown organization", () => {
    const error = failure(() => loadPolicy(withFile("dev-users.json", (f) => (f.users.ana.organization = "initech"))));
    expect(error.message).toBe('policies/dev-users.json: users.ana.organization: unknown organization "initech"');
  });

  it("names a missing file", () => {
    const { "organizations.json": _removed, ...rest } = bundledPolicyFiles;
    expect(failure(() => loadPolicy(rest)).message).toBe(
      "policies/organizations.json: (file): file is missing from the bundle",
    );
  });

  it("validates the rate-limit policy and resolves quotas per organization and tool", () => {
    const error = failure(() => loadRateLimitPolicy(withFile("rate-limits.json", (f) => (f.default.limit = -1))));
    expect(error.message).toMatch(/^policies\/rate-limits\.json: default\.limit: /);
    const policy = loadRateLimitPolicy(
      withFile("rate-limits.json", (f) => {
        f.tools.orders_search = { limit: 10, windowSeconds: 60 };
        f.organizations.acme = { tools: { orders_search: { limit: 5, windowSeconds: 30 } } };
      }),
    );
    expect(quotaFor(policy, "acme", "orders_search")).toEqual({ limit: 5, windowSeconds: 30 });
    expect(quotaFor(policy, "globex", "orders_search")).toEqual({ limit: 10, windowSeconds: 60 });
    expect(quotaFor(policy, "globex", "whoami")).toEqual({ limit: 30, windowSeconds: 60 });
  });
});
