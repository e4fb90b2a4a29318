/**
 * DNS-rebinding protection for /mcp: the Host must be this deployment's, and a browser Origin, when sent,
 * must be on an allowed hostname. McpAgent does not check either.
 * Also the one check that a browser form post (consent, console) came from this deployment's own pages.
 */
import type { Env } from "../env";
import { devSignInEnabled } from "../env";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** The last set built, by the variables it was built from: every request asks, the variables rarely change. */
let lastAllowed: { key: string; hosts: ReadonlySet<string> } | undefined;

export function allowedHostnames(env: Env): ReadonlySet<string> {
  const key = `${env.PUBLIC_URL}\n${env.ALLOWED_HOSTNAMES ?? ""}\n${devSignInEnabled(env)}`;
  if (lastAllowed?.key === key) return lastAllowed.hosts;
  const hosts = new Set<string>([new URL(env.PUBLIC_URL).hostname]);
  for (const host of (env.ALLOWED_HOSTNAMES ?? "").split(",")) if (host.trim()) hosts.add(host.trim().toLowerCase());
  if (devSignInEnabled(env)) for (const host of LOOPBACK) hosts.add(host);
  lastAllowed = { key, hosts };
  return hosts;
}

/** Returns a reason when the request must be refused, otherwise undefined. */
export function foreignOriginOrHost(request: Request, env: Env): string | undefined {
  const allowed = allowedHostnames(env);
  const host = request.headers.get("host");
  const hostname = host ? hostnameOf(`http://${host}`) : new URL(request.url).hostname;
  if (!hostname || !allowed.has(hostname)) return "Host is not this server";
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const originHost = /^https?:\/\//i.test(origin) ? hostnameOf(origin) : undefined;
    if (!originHost || !allowed.has(originHost)) return "Origin is not allowed";
  }
  return undefined;
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function forbidden(reason: string): Response {
  return Response.json(
    { error: "forbidden", error_description: `${reason}. Connect to this server's public URL.` },
    { status: 403 },
  );
}

/**
 * A form post from this deployment's own pages: its Origin is PUBLIC_URL's origin or the origin the request
 * arrived on; without an Origin header, only a browser-declared same-origin request (Sec-Fetch-Site) passes.
 * Browsers send Origin on every POST, so a post with neither header did not come from one of our pages.
 */
export function postedFromThisSite(request: Request, env: Env): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return request.headers.get("sec-fetch-site") === "same-origin";
  return origin === new URL(env.PUBLIC_URL).origin || origin === new URL(request.url).origin;
}
