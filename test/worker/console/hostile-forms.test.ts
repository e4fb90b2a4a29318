/**
 * Every form action of the admin console, posted by a signed-in administrator with a valid CSRF token and hostile
 * field values: markup, over-long text, control characters, header injection, numbers out of range. Each answer
 * must be a page or a redirect (a refusal that says what was wrong, or the change made), never a 5xx or a stack
 * trace; and whatever was stored is shown escaped on every console page afterwards.
 */
import { describe, expect, it } from "vitest";
import { signedIn } from "./console-helpers";

const MARKUP = `"><script>alert(1)</script>`;
const HOSTILE_VALUES = [
  MARKUP,
  "x".repeat(10_000),
  "",
  "a\u0000b\u0007c",
  "ana@acme.example\r\nBcc: mallory@evil.example",
  "😀\u202e",
];

const FIELDS = [
  "name",
  "emailDomains",
  "defaultRole",
  "membersOnly",
  "otherProjects",
  "signInIssuer",
  "signInClientId",
  "signInClientSecret",
  "signInRoleClaim",
  "upstreamEndpoint",
  "upstreamCredential",
  "upstreamCredentialHeader",
  "upstreamCredentialScheme",
  "upstreamOrganizationHeader",
  "quotaDefaultLimit",
  "quotaDefaultWindow",
  "value",
  "email",
  "inviteEmail",
  "role",
  "user",
  "grant",
  "client",
  "id",
  "fingerprint",
  "owner",
  "project",
  "scope",
  "expiresOn",
  "reason",
  "revision",
];

const ACTIONS = [
  "/admin/keys",
  "/admin/keys/revoke",
  "/admin/clients/revoke",
  "/admin/accepted-breaks",
  "/admin/accepted-breaks/revoke",
  "/admin/organization/settings",
  "/admin/organization/secret",
  "/admin/organization/upstream-test",
  "/admin/organization/member",
  "/admin/organization/member/remove",
];

const PAGES = ["/admin", "/admin/clients", "/admin/keys", "/admin/projects", "/admin/audit", "/admin/organization"];

function problemsOf(label: string, status: number, text: string): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`${label}: ${status} ${text.replace(/<[^>]+>/g, " ").slice(0, 200)}`);
  if (text.includes("<script>alert(1)")) problems.push(`${label}: markup shown unescaped`);
  if (/\n\s+at .+:\d+:\d+/.test(text)) problems.push(`${label}: a stack trace`);
  return problems;
}

describe("the console's forms with hostile values", () => {
  it("answers every action with a page or a redirect, and shows what it stored escaped", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    const problems: string[] = [];
    for (const action of ACTIONS) {
      for (const value of HOSTILE_VALUES) {
        const label = `${action} with ${JSON.stringify(value.slice(0, 20))}`;
        const everyField = Object.fromEntries(FIELDS.map((field) => [field, value]));
        const { status, text } = await ana.post(action, { ...everyField, csrf });
        problems.push(...problemsOf(`${label} in every field`, status, text));
        for (const field of ["name", "email"]) {
          const one = await ana.post(action, { [field]: value, csrf });
          problems.push(...problemsOf(`${label} in ${field} alone`, one.status, one.text));
        }
      }
    }
    for (const page of PAGES) {
      const { status, text } = await ana.get(page);
      problems.push(...problemsOf(`GET ${page} afterwards`, status, text));
    }
    expect(problems).toEqual([]);
  });
});
