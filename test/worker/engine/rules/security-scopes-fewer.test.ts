import { describe, expect, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const schemes = {
  components: {
    securitySchemes: {
      Bearer: { type: "http", scheme: "bearer" },
      Key: { type: "apiKey", in: "header", name: "X-Api-Key" },
    },
  },
};
const op = (security?: unknown[]) =>
  openapi(
    { "/orders": { get: { ...(security ? { security } : {}), responses: responses({ "200": null }) } } },
    schemes,
  );

describe("security-scopes-fewer", () => {
  it("accepts the same scopes, more scopes (security-requirements reports those) and anonymous sides (also security-requirements')", () => {
    expectValid("security-scopes-fewer", op([{ Bearer: ["read", "admin"] }]), op([{ Bearer: ["admin", "read"] }]));
    expectValid("security-scopes-fewer", op([{ Bearer: ["read"] }]), op([{ Bearer: ["read", "admin"] }]));
    expectValid("security-scopes-fewer", op([{ Bearer: ["read"] }]), op());
    expectValid("security-scopes-fewer", op(), op([{ Bearer: ["read"] }]));
  });

  it("refuses an implementation that checks fewer scopes than the contract (over-granted), naming the scopes left unchecked", () => {
    const [violation] = expectViolations(
      "security-scopes-fewer",
      op([{ Bearer: ["read", "admin"] }]),
      op([{ Bearer: ["read"] }]),
      [
        {
          location: "GET /orders#/security",
          message:
            "the contract requires bearer token with scopes read admin but the implementation only requires bearer token with scopes read: scopes admin are not checked",
        },
      ],
    );
    // No client is refused (a token with read and admin still has read): clients are over-granted, a security regression.
    expect(violation?.severity).toBe("error");
    expect(violation?.message).toContain("over-granted");
    // Of two implementation alternatives, the identical one counts: no finding.
    expectValid("security-scopes-fewer", op([{ Bearer: ["read"] }]), op([{ Bearer: [] }, { Bearer: ["read"] }]));
    expectViolations(
      "security-scopes-fewer",
      op([{ Bearer: ["read"] }, { Key: [] }]),
      op([{ Bearer: [] }, { Key: [] }]),
      [{ location: "GET /orders#/security", message: "scopes read are not checked" }],
    );
  });
});
