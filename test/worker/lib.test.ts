// The shared helpers of src/lib/ (in the Workers runtime they run in) and the formats that depend on them: cookies sealed before the helpers were
// shared (the two fixtures below were written by the previous session and sign-in-flow code) still open, and
// sealing the same input writes the very same bytes.
import { describe, expect, it } from "vitest";
import { newFlow, openFlow, sealFlow } from "../../src/auth/oidc-state";
import { openSession, sealSession } from "../../src/auth/session";
import { readCookie } from "../../src/lib/cookies";
import { openSealed, sealValue } from "../../src/lib/sealed";
import { sha256Digest as contentHash, sha256Hex } from "../../src/lib/sha256";
import { decodePrincipal, encodePrincipal } from "../../src/mcp/principal-header";

const NOW = Date.UTC(2026, 11, 1, 9, 0, 0);
const SECRET = "a-test-secret-of-at-least-thirty-two-characters";
const IDENTITY = {
  subject: "ana",
  name: "Ana Lima ✓",
  email: "ana@acme.example",
  organizationId: "acme",
  role: "admin",
  method: "oidc" as const,
};
const FLOW = { state: "s1", nonce: "n1", codeVerifier: "v1", returnTo: "/admin?x=ü", issuer: "https://idp.example" };
const OLD_SESSION =
  "eyJzdWJqZWN0IjoiYW5hIiwibmFtZSI6IkFuYSBMaW1hIOKckyIsImVtYWlsIjoiYW5hQGFjbWUuZXhhbXBsZSIsIm9yZ2FuaXphdGlvbklkIjoiYWNtZSIsInJvbGUiOiJhZG1pbiIsIm1ldGhvZCI6Im9pZGMiLCJleHAiOjE3OTYxNDQ0MDB9.V9WCNWjsqmG50LM1bcvxfEzTyd3fzYQ74TdN7v2N8-Y";
const OLD_FLOW =
  "eyJzdGF0ZSI6InMxIiwibm9uY2UiOiJuMSIsImNvZGVWZXJpZmllciI6InYxIiwicmV0dXJuVG8iOiIvYWRtaW4_eD3DvCIsImlzc3VlciI6Imh0dHBzOi8vaWRwLmV4YW1wbGUiLCJleHAiOjE3OTYxMTYyMDB9.lSsyJaaMzGhgL-ZRUOKkzliF0ycPEbot6k7jYDDoyOA";

describe("sealed cookies", () => {
  it("opens a browser session sealed before the helper was shared, and writes the same value", async () => {
    expect(await openSession(OLD_SESSION, SECRET, NOW)).toEqual(IDENTITY);
    expect(await sealSession(IDENTITY, SECRET, NOW)).toBe(OLD_SESSION);
  });

  it("opens a sign-in flow sealed before the helper was shared, and writes the same value", async () => {
    expect(await openFlow(OLD_FLOW, SECRET, NOW)).toEqual(FLOW);
    expect(await sealFlow(FLOW, SECRET, NOW)).toBe(OLD_FLOW);
  });

  it("keeps purposes apart: a session never opens as a sign-in flow, nor the reverse", async () => {
    expect(await openFlow(OLD_SESSION, SECRET, NOW)).toBeUndefined();
    expect(await openSession(OLD_FLOW, SECRET, NOW)).toBeUndefined();
    expect(
      await openSession(await sealFlow(newFlow("https://idp.example", "/"), SECRET, NOW), SECRET, NOW),
    ).toBeUndefined();
  });

  it("refuses expired, altered, foreign-key and malformed values", async () => {
    const key = { purpose: "test", secret: SECRET };
    const sealed = await sealValue({ a: 1 }, key, 60, NOW);
    expect(await openSealed(sealed, key, NOW)).toEqual({ a: 1 });
    expect(await openSealed(sealed, key, NOW + 61_000)).toBeUndefined();
    expect(await openSealed(sealed, { ...key, secret: `${SECRET}-other` }, NOW)).toBeUndefined();
    const [body, signature] = sealed.split(".");
    expect(await openSealed(`${body}x.${signature}`, key, NOW)).toBeUndefined();
    expect(await openSealed(`${body}.${signature}.x`, key, NOW)).toBeUndefined();
    for (const garbage of ["", ".", "garbage", "%%%.%%%", `${body}.`])
      expect(await openSealed(garbage, key, NOW)).toBeUndefined();
  });
});

describe("readCookie", () => {
  const request = (cookie?: string) =>
    new Request("https://arbiter.example/", cookie === undefined ? {} : { headers: { cookie } });

  it("finds the named cookie among others, trimmed, with = signs in the value kept", () => {
    expect(readCookie(request("a=1; __Host-arbiter-session=abc.d=f ;b=2"), "__Host-arbiter-session")).toBe("abc.d=f");
    expect(readCookie(request("a=1;b=2"), "b")).toBe("2");
  });

  it("answers undefined without the cookie or without a Cookie header", () => {
    expect(readCookie(request("a=1; xb=2; =3"), "b")).toBeUndefined();
    expect(readCookie(request(), "b")).toBeUndefined();
  });
});

describe("sha256Hex", () => {
  it("is the SHA-256 of the bytes or of the UTF-8 text, in lowercase hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex(new TextEncoder().encode("abc"))).toBe(await sha256Hex("abc"));
  });

  it("keeps stored content hashes as sha256:<hex>", async () => {
    expect(await contentHash(new TextEncoder().encode("abc"))).toBe(
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("principal header", () => {
  it("is unpadded base64url of the principal's JSON, and reads back", () => {
    const principal = {
      organizationId: "acme",
      userId: "ana ✓",
      clientId: "c?>",
      role: "admin",
      scopes: ["orders.read"],
    };
    const header = encodePrincipal(principal);
    // What the hand-written encoder wrote for this principal (unpadded, URL-safe alphabet).
    expect(header).toBe(
      "eyJvcmdhbml6YXRpb25JZCI6ImFjbWUiLCJ1c2VySWQiOiJhbmEg4pyTIiwiY2xpZW50SWQiOiJjPz4iLCJyb2xlIjoiYWRtaW4iLCJzY29wZXMiOlsib3JkZXJzLnJlYWQiXX0",
    );
    expect(decodePrincipal(header)).toEqual(principal);
    expect(decodePrincipal("%%%")).toBeUndefined();
  });
});
