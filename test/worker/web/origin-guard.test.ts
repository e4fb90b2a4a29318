/**
 * The Host/Origin guard (src/auth/origin-guard.ts) keeps the allowed names of the last variables it saw, since every
 * request asks: the names must still follow the variables when they change (a test or an isolate serving a new
 * deployment's env), never answer from a stale set.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { allowedHostnames, foreignOriginOrHost } from "../../../src/auth/origin-guard";

const envWith = (vars: Partial<Env>) => ({ PUBLIC_URL: "https://arbiter.example", ...vars }) as Env;
const request = (host: string, origin?: string) =>
  new Request(`https://${host}/mcp`, { headers: { host, ...(origin ? { origin } : {}) } });

describe("Host and Origin guard", () => {
  it("follows PUBLIC_URL, ALLOWED_HOSTNAMES and the development sign-in as they change", () => {
    expect([...allowedHostnames(envWith({}))]).toEqual(["arbiter.example"]);
    expect(foreignOriginOrHost(request("mcp.acme.example"), envWith({}))).toBe("Host is not this server");
    expect(
      foreignOriginOrHost(
        request("mcp.acme.example"),
        envWith({ ALLOWED_HOSTNAMES: "MCP.acme.example, other.example" }),
      ),
    ).toBeUndefined();
    expect(foreignOriginOrHost(request("mcp.acme.example"), envWith({}))).toBe("Host is not this server");
    expect(foreignOriginOrHost(request("localhost:8787"), envWith({ ARBITER_DEV_SIGN_IN: "true" }))).toBeUndefined();
    expect(foreignOriginOrHost(request("localhost:8787"), envWith({}))).toBe("Host is not this server");
    expect(
      foreignOriginOrHost(
        request("arbiter.example", "https://evil.example"),
        envWith({ PUBLIC_URL: "https://arbiter.example" }),
      ),
    ).toBe("Origin is not allowed");
    expect(
      foreignOriginOrHost(
        request("evil.example", "https://evil.example"),
        envWith({ PUBLIC_URL: "https://evil.example" }),
      ),
    ).toBeUndefined();
  });
});
