import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const schemes = (securitySchemes: Record<string, unknown>) => ({ components: { securitySchemes } });
const op = (security?: unknown[]) => ({
  "/orders": { get: { ...(security ? { security } : {}), responses: responses({ "200": null }) } },
});

describe("security-requirements", () => {
  it("compares schemes by kind, not name: http bearer equals OAuth 2; document-level security counts", () => {
    const contract = openapi(
      op([{ oauth: ["orders.read"] }]),
      schemes({
        oauth: {
          type: "oauth2",
          flows: { clientCredentials: { tokenUrl: "https://a/token", scopes: { "orders.read": "read" } } },
        },
      }),
    );
    const snapshot = openapi(op(), {
      security: [{ Bearer: [] }],
      ...schemes({ Bearer: { type: "http", scheme: "bearer" } }),
    });
    expectValid("security-requirements", contract, snapshot);
  });

  it("reports missing authentication, extra authentication and extra scopes", () => {
    const bearer = schemes({
      Bearer: { type: "http", scheme: "bearer" },
      Key: { type: "apiKey", in: "header", name: "X-Api-Key" },
    });
    expectViolations("security-requirements", openapi(op([{ Bearer: [] }]), bearer), openapi(op(), bearer), [
      { location: "GET /orders#/security", message: "the implementation declares no authentication" },
    ]);
    expectViolations("security-requirements", openapi(op(), bearer), openapi(op([{ Key: [] }]), bearer), [
      { location: "GET /orders#/security", message: "lets clients call this operation without authentication" },
    ]);
    expectViolations(
      "security-requirements",
      openapi(op([{ Bearer: ["read"] }]), bearer),
      openapi(op([{ Bearer: ["read", "admin"] }]), bearer),
      [{ location: "GET /orders#/security", message: "does not satisfy the implementation" }],
    );
  });

  it("accepts fewer scopes (security-scopes-fewer warns about those) and the same scopes in another order", () => {
    const bearer = schemes({ Bearer: { type: "http", scheme: "bearer" } });
    expectValid(
      "security-requirements",
      openapi(op([{ Bearer: ["read", "admin"] }]), bearer),
      openapi(op([{ Bearer: ["read"] }]), bearer),
    );
    expectValid(
      "security-requirements",
      openapi(op([{ Bearer: ["read", "admin"] }]), bearer),
      openapi(op([{ Bearer: ["admin", "read"] }]), bearer),
    );
  });

  it("does not take an OpenID Connect requirement with no scopes for a scoped OAuth 2 one, in either direction of naming", () => {
    const oauth = {
      type: "oauth2",
      flows: { clientCredentials: { tokenUrl: "https://a/token", scopes: { "orders.read": "read" } } },
    };
    const oidc = { type: "openIdConnect", openIdConnectUrl: "https://a/.well-known/openid-configuration" };
    const contract = openapi(op([{ oauth: ["orders.read"] }]), schemes({ oauth }));
    expectViolations("security-requirements", contract, openapi(op([{ oidc: [] }]), schemes({ oidc })), [
      {
        location: "GET /orders#/security",
        message:
          "an OpenID Connect requirement with no scopes does not satisfy the contract's OAuth 2 scopes orders.read",
      },
    ]);
    // A scoped OpenID Connect requirement, or a contract that itself asks for no scopes, is another matter.
    expectValid("security-requirements", contract, openapi(op([{ oidc: ["orders.read"] }]), schemes({ oidc })));
    expectValid(
      "security-requirements",
      openapi(op([{ oauth: [] }]), schemes({ oauth })),
      openapi(op([{ oidc: [] }]), schemes({ oidc })),
    );
  });
});
