import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import cliFile from "../../../bin/arbiter.mjs?raw";
import { BASE } from "../helpers";

describe("GET /cli/arbiter.mjs", () => {
  it("serves exactly bin/arbiter.mjs without authentication", async () => {
    const response = await SELF.fetch(`${BASE}/cli/arbiter.mjs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const served = new Uint8Array(await response.arrayBuffer());
    expect(served).toEqual(new TextEncoder().encode(cliFile));
    expect(cliFile).toContain("#!/usr/bin/env node");
  });

  it("answers HEAD and refuses other methods", async () => {
    expect((await SELF.fetch(`${BASE}/cli/arbiter.mjs`, { method: "HEAD" })).status).toBe(200);
    expect((await SELF.fetch(`${BASE}/cli/arbiter.mjs`, { method: "POST" })).status).toBe(405);
  });
});
