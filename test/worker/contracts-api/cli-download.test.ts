/// <reference types="vite/client" />
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { bundleCli } from "../../../src/api/cli-bundle";
import { BASE } from "../helpers";

// Every source below bin/, read through Vite (not through the Worker's text rule and import list).
const files = import.meta.glob<string>("../../../bin/**/*.mjs", { query: "?raw", import: "default", eager: true });
const sources = Object.fromEntries(
  Object.entries(files).map(([path, text]) => [path.replace("../../../bin/", ""), text]),
);

describe("GET /cli/arbiter.mjs", () => {
  it("serves bin/arbiter.mjs and its modules joined into one file, without authentication", async () => {
    const response = await SELF.fetch(`${BASE}/cli/arbiter.mjs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const served = new TextDecoder().decode(await response.arrayBuffer());
    expect(Object.keys(sources)).toContain("cli/commands/snapshot.mjs");
    expect(served).toBe(bundleCli(sources));
    expect(served.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(served).not.toMatch(/^import .* from "\.\.?\//m);
  });

  it("answers HEAD and refuses other methods", async () => {
    expect((await SELF.fetch(`${BASE}/cli/arbiter.mjs`, { method: "HEAD" })).status).toBe(200);
    expect((await SELF.fetch(`${BASE}/cli/arbiter.mjs`, { method: "POST" })).status).toBe(405);
  });
});
