/**
 * A minimal browser for end-to-end tests over real HTTP: a cookie jar per host (name/value only, ignoring
 * Path and Domain, which is enough for one flow per jar) and manual redirects so a test sees every hop.
 */
export class HttpBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  private jar(url: URL): Map<string, string> {
    let jar = this.jars.get(url.host);
    if (!jar) {
      jar = new Map();
      this.jars.set(url.host, jar);
    }
    return jar;
  }

  /** The value of a cookie the browser holds for `origin`'s host. */
  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(new URL(origin).host)?.get(name);
  }

  setCookie(origin: string, name: string, value: string): void {
    this.jar(new URL(origin)).set(name, value);
  }

  private store(url: URL, response: Response): void {
    const jar = this.jar(url);
    for (const header of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(";");
      const index = pair.indexOf("=");
      if (index <= 0) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = "", raw = ""] = attribute.split("=");
        const k = key.trim().toLowerCase();
        if (k === "max-age") return Number(raw.trim()) <= 0;
        if (k === "expires") return Date.parse(raw.trim()) <= Date.now();
        return false;
      });
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  }

  /** One request, no redirect following; cookies are sent and stored. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookies = [...this.jar(target)].map(([k, v]) => `${k}=${v}`).join("; ");
    if (cookies) headers.set("Cookie", cookies);
    const response = await fetch(target, { ...init, headers, redirect: "manual" });
    this.store(target, response);
    return response;
  }

  /** Posts a form like a browser (Origin set to the target's origin, as a same-site form post would be). */
  async postForm(url: string, fields: Record<string, string>): Promise<Response> {
    return this.fetch(url, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin },
    });
  }
}

/** Absolute URL of a redirect's Location. */
export function locationOf(response: Response, base: string): string | undefined {
  const location = response.headers.get("location");
  return location === null ? undefined : new URL(location, base).href;
}
