/** Helpers for the admin console tests: a signed-in browser (cookie jar), its pages, CSRF tokens and forms. */
import { env } from "cloudflare:test";
import type { AuditQuery } from "../../../src/audit/store-rpc";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import { BASE, browserFetch, CookieJar, devSignIn } from "../helpers";

export interface ConsoleBrowser {
  jar: CookieJar;
  get(path: string): Promise<{ status: number; text: string; response: Response }>;
  /** Posts a form like the browser would from a console page (same Origin) unless `headers` say otherwise. */
  post(
    path: string,
    fields: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ): Promise<{ status: number; text: string; response: Response }>;
  /** The CSRF token of this browser's session, read from a console page's form. */
  csrf(): Promise<string>;
}

function decodeEntities(value: string): string {
  return value.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code))).replace(/&amp;/g, "&");
}

export function csrfFrom(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error(`no CSRF token in page: ${page.slice(0, 300)}`);
  return decodeEntities(match[1]!);
}

export function formBody(fields: Record<string, string | string[]>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  return body;
}

export async function signedIn(user: string): Promise<ConsoleBrowser> {
  const jar = new CookieJar();
  const signIn = await devSignIn(jar, user, "/admin");
  if (signIn.status !== 303) throw new Error(`sign-in failed: ${signIn.status}`);
  const browser: ConsoleBrowser = {
    jar,
    async get(path) {
      const response = await browserFetch(jar, path, { headers: { Accept: "text/html" } });
      return { status: response.status, text: await response.text(), response };
    },
    async post(path, fields, headers = { Origin: BASE }) {
      const response = await browserFetch(jar, path, {
        method: "POST",
        body: formBody(fields),
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
      });
      return { status: response.status, text: await response.text(), response };
    },
    async csrf() {
      return csrfFrom((await browser.get("/admin/keys")).text);
    },
  };
  return browser;
}

export async function auditEvents(organizationId: string, query: Partial<AuditQuery> = {}): Promise<AuditRecord[]> {
  return (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { limit: 100, ...query })).events;
}

/** Text of a page without tags, entities decoded: what a reader sees. */
export function visibleText(page: string): string {
  return decodeEntities(page.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ");
}
