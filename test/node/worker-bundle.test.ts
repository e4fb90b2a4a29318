/**
 * The Worker's bundle as `wrangler deploy` builds it (a dry run with esbuild's metafile): packages that no path of
 * Arbiter executes stay out of it, replaced by the refusal modules wrangler.toml's [alias] names, and every session
 * of the 2025-11-25 lane is built with a validator that needs none of them (the e2e files run this bundle).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const outdir = mkdtempSync(join(tmpdir(), "arbiter-bundle-"));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function dryRun(): { inputs: string[]; printed: string } {
  const metafile = join(outdir, "meta.json");
  const printed = execFileSync(join(root, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", join(outdir, "dist"), "--metafile", metafile], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  });
  return { inputs: Object.keys((JSON.parse(readFileSync(metafile, "utf8")) as { inputs: Record<string, unknown> }).inputs), printed };
}

describe("the Worker bundle", () => {
  it("leaves out ajv and mimetext, bundling their refusals instead", () => {
    const { inputs, printed } = dryRun();
    expect(printed).toMatch(/Total Upload: [\d.]+ KiB \/ gzip: [\d.]+ KiB/);
    const packages = (name: string) => inputs.filter((path) => path.includes(`node_modules/${name}/`));
    for (const name of ["ajv", "ajv-formats", "fast-uri", "mimetext", "mime-db"]) expect(packages(name), name).toEqual([]);
    expect(inputs).toContain("src/lib/ajv-refusal.ts");
    expect(inputs).toContain("src/lib/mimetext-refusal.ts");
    // The code that uses them is still in (the SDK's default validator, agents' e-mail reply): only never reached.
    expect(inputs).toContain("node_modules/@modelcontextprotocol/sdk/dist/esm/validation/ajv-provider.js");
  }, 120_000);

  it("says what to do should anything construct the refused ajv", async () => {
    const { default: Ajv } = await import("../../src/lib/ajv-refusal");
    expect(() => new (Ajv as unknown as new () => object)()).toThrow(/ajv is not bundled in this Worker .*give the MCP SDK a jsonSchemaValidator/);
  });
});
