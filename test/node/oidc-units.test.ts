/**
 * The pure parts of OpenID Connect sign-in, checked directly: organization and role mapping against the
 * real policies/organizations.json, provider URL rules, configuration, discovery document checks, the
 * signed flow cookie, and client authentication choice. The end-to-end behaviour is in oidc-signin.test.ts.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  isAcceptableProviderUrl,
  oidcEnabled,
  ORGANIZATION_PROVIDER_SETTINGS,
  PLATFORM_PROVIDER_SETTINGS,
  readOidcConfig,
  type OidcVars,
} from "../../src/auth/oidc-config";
import {
  clearDiscoveryCache,
  discoverProvider,
  validateProviderMetadata,
  type ProviderMetadata,
} from "../../src/auth/oidc-discovery";
import { OidcFailure } from "../../src/auth/oidc-errors";
import { mappingRefusal } from "../../src/auth/oidc-refusal";
import {
  claimStrings,
  displayName,
  emailVerification,
  mapOrganization,
  type OrganizationDirectory,
} from "../../src/auth/oidc-mapping";
import { newFlow, openFlow, OIDC_FLOW_TTL_SECONDS, sealFlow } from "../../src/auth/oidc-state";
import { clientAuthMethod, exchangeCode } from "../../src/auth/oidc-token";
import { needsUserinfo } from "../../src/auth/oidc-userinfo";

const policy = JSON.parse(
  readFileSync(resolve(import.meta.dirname, "../../policies/organizations.json"), "utf8"),
) as OrganizationDirectory;

function failureOf(run: () => unknown): OidcFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof OidcFailure) return error;
    throw error;
  }
  throw new Error("expected an OidcFailure");
}

describe("organization and role mapping", () => {
  const settings = { orgClaim: "org", roleClaim: "role" };

  it("takes the organization from the claim before the e-mail domain", () => {
    expect(
      mapOrganization({ org: "globex", email: "x@acme.example", email_verified: true }, settings, policy),
    ).toMatchObject({ ok: true, organizationId: "globex", organizationFrom: "claim" });
  });

  it("accepts an array claim (e.g. groups) when exactly one organization matches", () => {
    expect(mapOrganization({ org: ["staff", "acme"] }, settings, policy)).toMatchObject({
      ok: true,
      organizationId: "acme",
    });
  });

  it("refuses a claim that matches several organizations", () => {
    expect(mapOrganization({ org: ["acme", "globex"] }, settings, policy)).toMatchObject({
      ok: false,
      reason: "several-organizations",
      organizationIds: ["acme", "globex"],
    });
  });

  it("falls back to the e-mail domain (case-insensitive) when the claim is absent or unknown", () => {
    expect(mapOrganization({ email: "Bob@GLOBEX.example", email_verified: true }, settings, policy)).toMatchObject({
      ok: true,
      organizationId: "globex",
      organizationFrom: "email-domain",
    });
    expect(mapOrganization({ org: "initech", email: "bob@globex.example" }, settings, policy)).toMatchObject({
      ok: true,
      organizationId: "globex",
    });
  });

  it("uses the domain when email_verified is absent but never when it is false (boolean or string)", () => {
    expect(mapOrganization({ email: "a@acme.example" }, settings, policy)).toMatchObject({
      ok: true,
      organizationId: "acme",
    });
    expect(mapOrganization({ email: "a@acme.example", email_verified: false }, settings, policy)).toMatchObject({
      ok: false,
      reason: "no-organization",
    });
    expect(mapOrganization({ email: "a@acme.example", email_verified: "false" }, settings, policy)).toMatchObject({
      ok: false,
      reason: "no-organization",
    });
  });

  it("does not match a subdomain or a look-alike domain", () => {
    expect(mapOrganization({ email: "a@eu.acme.example" }, settings, policy)).toMatchObject({ ok: false });
    expect(mapOrganization({ email: "a@acme.example.evil.test" }, settings, policy)).toMatchObject({ ok: false });
    expect(mapOrganization({ email: "acme.example" }, settings, policy)).toMatchObject({ ok: false });
  });

  it("ignores the org claim when OIDC_ORG_CLAIM is not configured", () => {
    expect(mapOrganization({ org: "globex", email: "x@acme.example" }, {}, policy)).toMatchObject({
      ok: true,
      organizationId: "acme",
    });
  });

  it("takes the role from the claim only when it names a known role", () => {
    expect(mapOrganization({ org: "acme", role: "analyst" }, settings, policy)).toMatchObject({
      role: "analyst",
      roleFrom: "claim",
    });
    expect(mapOrganization({ org: "acme", role: ["viewer", "developer"] }, settings, policy)).toMatchObject({
      role: "developer",
      roleFrom: "claim",
    });
    expect(mapOrganization({ org: "acme", role: "root" }, settings, policy)).toMatchObject({
      role: "member",
      roleFrom: "default",
    });
    expect(mapOrganization({ org: "acme", role: "__proto__" }, settings, policy)).toMatchObject({ role: "member" });
    expect(mapOrganization({ org: "acme", role: "admin" }, { orgClaim: "org" }, policy)).toMatchObject({
      role: "member",
    });
  });

  it("reports what it saw when it cannot place the user", () => {
    expect(
      mapOrganization({ org: "initech", email: "c@initech.example", email_verified: true }, settings, policy),
    ).toEqual({
      ok: false,
      reason: "no-organization",
      facts: {
        orgClaim: "org",
        orgClaimValues: ["initech"],
        email: "c@initech.example",
        emailDomain: "initech.example",
        emailVerified: true,
      },
    });
  });

  it("never places anyone in an organization that signs in with its own provider, by claim or by domain", () => {
    const acme = policy.organizations.acme!;
    const withOwnProvider: OrganizationDirectory = {
      ...policy,
      organizations: { ...policy.organizations, acme: { ...acme, ownProvider: true } },
    };
    expect(mapOrganization({ org: "acme" }, settings, withOwnProvider)).toMatchObject({
      ok: false,
      reason: "own-provider",
      organizationId: "acme",
      organizationFrom: "claim",
    });
    const byDomain = mapOrganization({ email: "a@acme.example", email_verified: true }, settings, withOwnProvider);
    expect(byDomain).toMatchObject({ ok: false, reason: "own-provider", organizationFrom: "email-domain" });
    // The claim still decides first: an organization without its own provider is placed as before.
    expect(
      mapOrganization({ org: "globex", email: "x@acme.example", email_verified: true }, settings, withOwnProvider),
    ).toMatchObject({ ok: true, organizationId: "globex" });
    if (byDomain.ok) throw new Error("placed");
    const refusal = mappingRefusal(byDomain, settings);
    expect(refusal).toMatchObject({ code: "own-provider", status: 403 });
    expect(refusal.message).toContain("acme (by its e-mail domain)");
    expect(String(refusal.more)).toContain("Sign in with your organization's account (work e-mail)");
  });

  it("reads claims defensively", () => {
    expect(claimStrings(["a", 3, "", "b", null])).toEqual(["a", "b"]);
    expect(claimStrings({ a: 1 })).toEqual([]);
    expect(emailVerification("true")).toBe(true);
    expect(emailVerification(undefined)).toBe("unspecified");
    expect(displayName({ preferred_username: "pat" }, "sub-1")).toBe("pat");
    expect(displayName({ name: "  " }, "sub-1")).toBe("sub-1");
  });

  it("asks UserInfo only for claims the mapping needs and the ID token lacks", () => {
    expect(needsUserinfo({ email: "a@b.c", org: "acme" }, "org", undefined)).toBe(false);
    expect(needsUserinfo({ email: "a@b.c" }, "org", undefined)).toBe(true);
    expect(needsUserinfo({ org: "acme" }, "org", undefined)).toBe(true);
    expect(needsUserinfo({ email: "a@b.c", org: "acme" }, "org", "role")).toBe(true);
  });
});

describe("provider URLs and configuration", () => {
  it("accepts https and loopback http only", () => {
    expect(isAcceptableProviderUrl("https://login.example.com")).toBe(true);
    expect(isAcceptableProviderUrl("http://127.0.0.1:9000")).toBe(true);
    expect(isAcceptableProviderUrl("http://localhost:9000/realms/x")).toBe(true);
    expect(isAcceptableProviderUrl("http://[::1]:9000")).toBe(true);
    expect(isAcceptableProviderUrl("http://login.example.com")).toBe(false);
    expect(isAcceptableProviderUrl("http://127.0.0.1.nip.io")).toBe(false);
    expect(isAcceptableProviderUrl("https://user:pass@login.example.com")).toBe(false);
    expect(isAcceptableProviderUrl("javascript:alert(1)")).toBe(false);
    expect(isAcceptableProviderUrl("not a url")).toBe(false);
  });

  const env = (vars: Partial<OidcVars>): OidcVars => ({ PUBLIC_URL: "https://arbiter.example", ...vars });

  it("is enabled by OIDC_ISSUER plus OIDC_CLIENT_ID", () => {
    expect(oidcEnabled(env({ OIDC_ISSUER: "https://idp.example", OIDC_CLIENT_ID: "x" }))).toBe(true);
    expect(oidcEnabled(env({ OIDC_ISSUER: "https://idp.example", OIDC_CLIENT_ID: "" }))).toBe(false);
    expect(oidcEnabled(env({ OIDC_ISSUER: "", OIDC_CLIENT_ID: "x" }))).toBe(false);
  });

  it("builds the callback from PUBLIC_URL and refuses unsafe settings by name", () => {
    const config = readOidcConfig(
      env({
        OIDC_ISSUER: "https://idp.example",
        OIDC_CLIENT_ID: "x",
        OIDC_CLIENT_SECRET: "s",
        OIDC_ORG_CLAIM: " org ",
        OIDC_SCOPES: "",
      }),
    );
    expect(config).toMatchObject({
      redirectUri: "https://arbiter.example/signin/oidc/callback",
      orgClaim: "org",
      scopes: "openid email profile",
      clientSecret: "s",
    });
    expect(config.roleClaim).toBeUndefined();
    expect(
      failureOf(() => readOidcConfig(env({ OIDC_ISSUER: "http://idp.example", OIDC_CLIENT_ID: "x" }))).message,
    ).toContain("OIDC_ISSUER must be an https URL");
    expect(
      failureOf(() =>
        readOidcConfig(env({ OIDC_ISSUER: "https://idp.example", OIDC_CLIENT_ID: "x", OIDC_SCOPES: "email" })),
      ).message,
    ).toContain("OIDC_SCOPES must include openid");
  });
});

describe("discovery document checks", () => {
  const issuer = "https://idp.example";
  const good = {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    code_challenge_methods_supported: ["S256"],
  };

  it("accepts a complete document for the configured issuer", () => {
    expect(validateProviderMetadata(good, issuer, PLATFORM_PROVIDER_SETTINGS)).toMatchObject({
      issuer,
      token_endpoint: `${issuer}/token`,
    });
  });

  it("refuses an issuer that differs from OIDC_ISSUER, even by a trailing slash, naming the setting to change", () => {
    const document = { ...good, issuer: `${issuer}/` };
    const failure = failureOf(() => validateProviderMetadata(document, issuer, PLATFORM_PROVIDER_SETTINGS));
    expect(failure.code).toBe("configuration");
    expect(failure.message).toContain("set OIDC_ISSUER to the provider's issuer exactly");
    // An organization's own provider is set in its signIn settings, not in the operator's Worker vars.
    const ofOrganization = failureOf(() => validateProviderMetadata(document, issuer, ORGANIZATION_PROVIDER_SETTINGS));
    expect(ofOrganization.message).toContain("set the organization's signIn.issuer to the provider's issuer exactly");
    expect(ofOrganization.message).not.toContain("OIDC_");
  });

  it("refuses plain-http or missing endpoints and providers without PKCE S256", () => {
    expect(
      failureOf(() =>
        validateProviderMetadata(
          { ...good, token_endpoint: "http://idp.example/token" },
          issuer,
          PLATFORM_PROVIDER_SETTINGS,
        ),
      ).message,
    ).toContain("token_endpoint that is not https");
    expect(
      failureOf(() => validateProviderMetadata({ ...good, jwks_uri: undefined }, issuer, PLATFORM_PROVIDER_SETTINGS))
        .message,
    ).toContain("has no jwks_uri");
    expect(
      failureOf(() =>
        validateProviderMetadata(
          { ...good, code_challenge_methods_supported: ["plain"] },
          issuer,
          PLATFORM_PROVIDER_SETTINGS,
        ),
      ).message,
    ).toContain("PKCE with S256");
    expect(failureOf(() => validateProviderMetadata([good], issuer, PLATFORM_PROVIDER_SETTINGS)).code).toBe(
      "provider-invalid",
    );
  });

  it("reports an unreachable provider as such, and does not cache the failure", async () => {
    const server = createServer((_req, res) => res.end("{}"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((done) => server.close(() => done()));
    clearDiscoveryCache();
    await expect(discoverProvider(`http://127.0.0.1:${port}`, PLATFORM_PROVIDER_SETTINGS)).rejects.toMatchObject({
      code: "provider-unreachable",
    });
  });

  it("reports a non-JSON or non-200 discovery answer, then succeeds and caches once the provider is right", async () => {
    let answer: { status: number; body: string } = { status: 404, body: "not here" };
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(answer.body);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      clearDiscoveryCache();
      await expect(discoverProvider(local, ORGANIZATION_PROVIDER_SETTINGS)).rejects.toMatchObject({
        code: "provider-invalid",
        message: expect.stringContaining(
          "HTTP 404 instead of the provider's discovery document. Check the organization's signIn.issuer.",
        ),
      });
      answer = { status: 200, body: "<html>" };
      await expect(discoverProvider(local, ORGANIZATION_PROVIDER_SETTINGS)).rejects.toMatchObject({
        code: "provider-invalid",
        message: expect.stringContaining("did not return JSON"),
      });
      answer = {
        status: 200,
        body: JSON.stringify({
          ...good,
          issuer: local,
          authorization_endpoint: `${local}/auth`,
          token_endpoint: `${local}/token`,
          jwks_uri: `${local}/jwks`,
        }),
      };
      const first = await discoverProvider(local, ORGANIZATION_PROVIDER_SETTINGS);
      const second = await discoverProvider(local, ORGANIZATION_PROVIDER_SETTINGS);
      expect(second).toBe(first);
      expect(requests).toBe(3);
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});

describe("the signed flow cookie", () => {
  const secret = "a-session-secret-of-at-least-32-characters!";

  it("round-trips and binds state, nonce, verifier and return path", async () => {
    const flow = newFlow("https://idp.example", "/authorize?x=1");
    expect(await openFlow(await sealFlow(flow, secret), secret)).toEqual(flow);
    expect(flow.state).not.toBe(flow.nonce);
    expect(flow.codeVerifier.length).toBeGreaterThanOrEqual(43);
  });

  it("is refused when expired, signed with another secret, or altered", async () => {
    const now = Date.now();
    const sealed = await sealFlow(newFlow("https://idp.example", "/"), secret, now);
    expect(await openFlow(sealed, secret, now + (OIDC_FLOW_TTL_SECONDS + 1) * 1000)).toBeUndefined();
    expect(await openFlow(sealed, `${secret}-other`, now)).toBeUndefined();
    const [body, signature] = sealed.split(".");
    const altered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, "base64url").toString()), returnTo: "/admin" }),
    ).toString("base64url");
    expect(await openFlow(`${altered}.${signature}`, secret, now)).toBeUndefined();
    expect(await openFlow("garbage", secret, now)).toBeUndefined();
  });
});

describe("client authentication at the token endpoint", () => {
  const provider: ProviderMetadata = {
    issuer: "https://idp.example",
    authorization_endpoint: "",
    token_endpoint: "",
    jwks_uri: "",
  };
  const config = {
    names: PLATFORM_PROVIDER_SETTINGS,
    issuer: "https://idp.example",
    clientId: "c",
    clientSecret: "s",
    scopes: "openid",
    redirectUri: "",
  };

  it("prefers client_secret_basic, falls back to client_secret_post, and uses none for a public client", () => {
    expect(clientAuthMethod(config, provider)).toBe("client_secret_basic");
    expect(
      clientAuthMethod(config, {
        ...provider,
        token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt"],
      }),
    ).toBe("client_secret_post");
    expect(clientAuthMethod({ ...config, clientSecret: undefined }, provider)).toBe("none");
    expect(
      failureOf(() =>
        clientAuthMethod(config, { ...provider, token_endpoint_auth_methods_supported: ["private_key_jwt"] }),
      ).code,
    ).toBe("configuration");
  });

  it("tells whoever set the client credentials to check them: the operator, or the organization's administrator", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_client", error_description: "client authentication failed" }));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const tokenEndpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
    const refusalFor = async (names: typeof config.names) => {
      const attempt = exchangeCode({ ...config, names }, { ...provider, token_endpoint: tokenEndpoint }, "code", "v");
      return (await attempt.then(
        () => expect.unreachable("the code was accepted"),
        (error: unknown) => error,
      )) as OidcFailure;
    };
    try {
      const platform = await refusalFor(PLATFORM_PROVIDER_SETTINGS);
      expect(platform.code).toBe("token-refused");
      expect(platform.message).toContain("The operator should check OIDC_CLIENT_ID and the OIDC_CLIENT_SECRET secret");
      const organization = await refusalFor(ORGANIZATION_PROVIDER_SETTINGS);
      expect(organization.message).toContain(
        "An administrator of the organization should check its signIn.clientId and its signInClientSecret secret",
      );
      expect(organization.message).not.toContain("OIDC_");
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
