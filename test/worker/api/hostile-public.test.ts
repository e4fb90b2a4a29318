/**
 * The doors a caller reaches without a token (OAuth, sign-in, invitations, discovery, the landing page, the CLI,
 * unknown paths), and a signed-in browser's consent and sign-in pages, sent malformed queries, bodies and paths.
 * Every answer must be a refusal or a page: never a 5xx, a stack trace, or the caller's markup unescaped.
 */
import { SELF } from "../self";
import { describe, expect, it, vi } from "vitest";
import { BASE, CookieJar, browserFetch, devSignIn, registerClient } from "../helpers";

const MARKUP = `"><script>alert(1)</script>`;
const HOSTILE_VALUES = ["%ZZ", "%C3%28", "x".repeat(8192), encodeURIComponent(MARKUP), "javascript:alert(1)"];

function problemsOf(label: string, status: number, text: string): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`${label}: ${status} ${text.slice(0, 160)}`);
  if (text.includes("<script>alert(1)")) problems.push(`${label}: markup echoed unescaped`);
  if (/\n\s+at .+:\d+:\d+/.test(text)) problems.push(`${label}: a stack trace`);
  return problems;
}

async function probe(label: string, url: string, init: RequestInit = {}, jar?: CookieJar): Promise<string[]> {
  const response = jar ? await browserFetch(jar, url, init) : await SELF.fetch(`${BASE}${url}`, init);
  return problemsOf(label, response.status, await response.text());
}

const AUTHORIZE_PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "resource",
  "code_challenge",
  "code_challenge_method",
];

describe("the public doors with malformed input", () => {
  it("answers /authorize with every parameter malformed, signed in or not, with a refusal or a page", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    expect((await devSignIn(jar, "ana", "/")).status).toBe(303);
    const valid: Record<string, string> = {
      client_id: client.client_id,
      redirect_uri: client.redirect_uris[0]!,
      response_type: "code",
      scope: "orders.read",
      state: "s",
      resource: `${BASE}/mcp`,
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    };
    // The valid request reaches the consent page, so each malformed one differs from it in that parameter only.
    const consent = await browserFetch(jar, `/authorize?${new URLSearchParams(valid)}`, {
      headers: { Accept: "text/html" },
    });
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain("<title>Authorize ");
    const problems: string[] = [];
    for (const name of AUTHORIZE_PARAMS)
      for (const value of HOSTILE_VALUES) {
        const query = Object.entries({ ...valid, [name]: "PLACEHOLDER" })
          .map(([key, v]) => `${key}=${v === "PLACEHOLDER" ? value : encodeURIComponent(v)}`)
          .join("&");
        const label = `/authorize ${name}=${value.slice(0, 20)}`;
        problems.push(...(await probe(label, `/authorize?${query}`, { headers: { Accept: "text/html" } })));
        problems.push(
          ...(await probe(`${label} signed in`, `/authorize?${query}`, { headers: { Accept: "text/html" } }, jar)),
        );
      }
    expect(problems).toEqual([]);
  });

  it("answers the token, registration and revocation endpoints' malformed bodies with OAuth errors", async () => {
    const bodies: { label: string; body: BodyInit; type: string }[] = [
      { label: "empty", body: "", type: "application/x-www-form-urlencoded" },
      { label: "bad percent-encoding", body: "grant_type=%ZZ&code=%C3%28", type: "application/x-www-form-urlencoded" },
      {
        label: "JSON as a form",
        body: '{"grant_type":"authorization_code"}',
        type: "application/x-www-form-urlencoded",
      },
      { label: "truncated JSON", body: '{"redirect_uris": ["https://a', type: "application/json" },
      { label: "JSON array", body: "[1]", type: "application/json" },
      { label: "deeply nested JSON", body: `${"[".repeat(50_000)}${"]".repeat(50_000)}`, type: "application/json" },
      {
        label: "not UTF-8",
        body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
        type: "application/json",
      },
      { label: "markup", body: `redirect_uris=${encodeURIComponent(MARKUP)}`, type: "text/html" },
      {
        label: "a long grant",
        body: `grant_type=refresh_token&refresh_token=${"x".repeat(70_000)}`,
        type: "application/x-www-form-urlencoded",
      },
    ];
    const problems: string[] = [];
    for (const path of ["/oauth/token", "/oauth/register", "/oauth/revoke"])
      for (const { label, body, type } of bodies)
        problems.push(
          ...(await probe(`${path} ${label}`, path, { method: "POST", body, headers: { "Content-Type": type } })),
        );
    expect(problems).toEqual([]);
  });

  it("answers sign-in, invitations, discovery and unknown paths with a refusal or a page", async () => {
    const paths = [
      ...HOSTILE_VALUES.flatMap((value) => [
        `/signin?return=${value}`,
        `/signin/choose?return=${value}`,
        `/signin/dev?return=${value}`,
        `/signin/oidc?return=${value}`,
        `/signin/oidc/callback?code=${value}&state=${value}`,
        `/signin/${value}`,
        `/invitations/${value}`,
        `/.well-known/oauth-protected-resource/${value}`,
        `/.well-known/oauth-authorization-server/${value}`,
        `/${value}`,
        `/mcp/${value}`,
        `/admin/${value}`,
      ]),
    ];
    const problems: string[] = [];
    for (const path of paths) {
      problems.push(...(await probe(`GET ${path.slice(0, 60)}`, path, { headers: { Accept: "text/html" } })));
      problems.push(
        ...(await probe(`POST ${path.slice(0, 60)}`, path, {
          method: "POST",
          body: "return=%ZZ&user=%C3%28",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
        })),
      );
    }
    expect(problems).toEqual([]);
  });
});

describe("credentials sent to the public doors", () => {
  it("are never written to the logs nor echoed in an answer, valid-looking or not", async () => {
    const marker = "tok3n-marker-5f1c9e27d4";
    const lines: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "));
      }),
    );
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const requests: Array<[string, RequestInit]> = [
      [
        "/mcp",
        {
          method: "POST",
          headers: { Authorization: `Bearer ${marker}`, "Content-Type": "application/json" },
          body: "{}",
        },
      ],
      [`/mcp?access_token=${marker}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }],
      ["/api/v1/whoami", { headers: { Authorization: `Bearer ${marker}` } }],
      ["/api/v1/whoami", { headers: { Authorization: `Basic ${btoa(`user:${marker}`)}` } }],
      ["/oauth/token", { method: "POST", headers: form, body: `grant_type=refresh_token&refresh_token=${marker}` }],
      [
        "/oauth/token",
        { method: "POST", headers: form, body: `grant_type=authorization_code&code=${marker}&code_verifier=${marker}` },
      ],
      [
        "/oauth/token",
        { method: "POST", headers: form, body: `grant_type=client_credentials&client_id=x&client_secret=${marker}` },
      ],
      ["/oauth/revoke", { method: "POST", headers: form, body: `token=${marker}` }],
      [
        "/oauth/register",
        {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://a.example/cb"], client_secret: marker }),
        },
      ],
      ["/admin", { headers: { Cookie: `__Host-arbiter-session=${marker}`, Accept: "text/html" } }],
    ];
    const echoed: string[] = [];
    try {
      for (const [path, init] of requests) {
        const response = await SELF.fetch(`${BASE}${path}`, init);
        const text = await response.text();
        const headers = JSON.stringify([...response.headers]);
        if (text.includes(marker) || headers.includes(marker))
          echoed.push(`${init.method ?? "GET"} ${path.slice(0, 40)}`);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(marker))).toEqual([]);
    expect(echoed).toEqual([]);
  });
});
