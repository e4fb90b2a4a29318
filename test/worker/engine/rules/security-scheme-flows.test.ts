import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const op = (security: unknown[], securitySchemes: Record<string, unknown>) =>
  openapi(
    { "/orders": { get: { security, responses: responses({ "200": null }) } } },
    { components: { securitySchemes } },
  );
const code = {
  authorizationUrl: "https://id.example/authorize",
  tokenUrl: "https://id.example/token",
  scopes: { read: "read" },
};
const oauth = (flows: Record<string, unknown>) => ({ type: "oauth2", flows });
const oidc = (url: string) => ({ type: "openIdConnect", openIdConnectUrl: url });

describe("security-scheme-flows", () => {
  it("accepts the same flows and URLs under other scheme names, extra implementation flows, and schemes of other kinds", () => {
    expectValid(
      "security-scheme-flows",
      op([{ oauth: ["read"] }], { oauth: oauth({ authorizationCode: code }) }),
      op([{ OAuth2: ["read"] }], {
        OAuth2: oauth({ authorizationCode: code, clientCredentials: { tokenUrl: code.tokenUrl, scopes: {} } }),
      }),
    );
    expectValid(
      "security-scheme-flows",
      op([{ oidc: [] }], { oidc: oidc("https://id.example/.well-known/openid-configuration") }),
      op([{ OpenId: [] }], { OpenId: oidc("https://id.example/.well-known/openid-configuration") }),
    );
    // An OAuth 2 contract against an HTTP bearer implementation has no flows to compare.
    expectValid(
      "security-scheme-flows",
      op([{ oauth: [] }], { oauth: oauth({ authorizationCode: code }) }),
      op([{ Bearer: [] }], { Bearer: { type: "http", scheme: "bearer" } }),
    );
  });

  it("reports a contract flow the implementation does not offer and a changed authorization, token or refresh URL", () => {
    expectViolations(
      "security-scheme-flows",
      op([{ oauth: [] }], { oauth: oauth({ authorizationCode: code }) }),
      op([{ oauth: [] }], { oauth: oauth({ clientCredentials: { tokenUrl: code.tokenUrl, scopes: {} } }) }),
      [
        {
          location: "GET /orders#/security",
          message:
            "the contract's OAuth 2 authorizationCode flow is not offered by the implementation (it offers clientCredentials)",
        },
      ],
    );
    expectViolations(
      "security-scheme-flows",
      op([{ oauth: [] }], { oauth: oauth({ authorizationCode: code }) }),
      op([{ oauth: [] }], {
        oauth: oauth({
          authorizationCode: {
            ...code,
            tokenUrl: "https://other.example/token",
            refreshUrl: "https://id.example/refresh",
          },
        }),
      }),
      [
        {
          location: "GET /orders#/security",
          message:
            'OAuth 2 authorizationCode flow: tokenUrl is "https://id.example/token" in the contract but "https://other.example/token" in the implementation',
        },
        {
          location: "GET /orders#/security",
          message:
            'OAuth 2 authorizationCode flow: refreshUrl is null in the contract but "https://id.example/refresh"',
        },
      ],
    );
  });

  it("reports a changed OpenID Connect discovery URL", () => {
    expectViolations(
      "security-scheme-flows",
      op([{ oidc: [] }], { oidc: oidc("https://id.example/.well-known/openid-configuration") }),
      op([{ oidc: [] }], { oidc: oidc("https://other.example/.well-known/openid-configuration") }),
      [
        {
          location: "GET /orders#/security",
          message:
            'OpenID Connect discovery URL is "https://id.example/.well-known/openid-configuration" in the contract but "https://other.example/.well-known/openid-configuration"',
        },
      ],
    );
  });
});
