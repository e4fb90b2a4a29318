/**
 * The Worker's bundle as `wrangler deploy` builds it (a dry run with esbuild's metafile, made once per run by the node
 * projects' setup, test/helpers/prebuilt-worker.ts): minified, within issue 36's 750 KiB gzip budget; packages that
 * no path of Arbiter executes stay out of it, replaced by the refusal modules wrangler.toml's [alias] names, and every
 * session of the 2025-11-25 lane is built with a validator that needs none of them (the e2e files run this bundle).
 */
import { describe, expect, it } from "vitest";
import { prebuiltWorkerBuild } from "../helpers/prebuilt-worker";

describe("the Worker bundle", () => {
  it("stays within 750 KiB gzip, and leaves out ajv, mimetext, capnweb, the MCP client SDK and zod 3 for their refusals", async () => {
    const { inputs, printed } = await prebuiltWorkerBuild();
    const size = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(printed);
    expect(size, "wrangler printed the upload size").not.toBeNull();
    // Issue 36's budget: at most 750 KiB gzip. wrangler.toml's `minify = true` is what keeps it (968 KiB without).
    expect(Number(size![2]), "gzip KiB").toBeLessThanOrEqual(750);
    const packages = (name: string) => inputs.filter((path) => path.includes(`node_modules/${name}/`));
    for (const name of ["ajv", "ajv-formats", "fast-uri", "mimetext", "mime-db", "zod-to-json-schema", "capnweb"])
      expect(packages(name), name).toEqual([]);
    expect(
      inputs.filter((path) => path.includes("node_modules/zod/v3/")),
      "zod/v3",
    ).toEqual([]);
    // The client SDK's JSON Schema validator (agents' client code extends it) is the only part of it kept.
    const client = packages("@modelcontextprotocol/client").filter(
      (path) => !/\/dist\/(validators\/cfWorker\.mjs|cfWorkerProvider-|dialects-)/.test(path),
    );
    expect(client, "@modelcontextprotocol/client").toEqual([]);
    for (const refusal of [
      "ajv-refusal",
      "mimetext-refusal",
      "mcp-client-refusal",
      "zod-v3-refusal",
      "capnweb-refusal",
    ])
      expect(inputs).toContain(`src/lib/${refusal}.ts`);
    // The code that uses them is still in (the SDK's default validator, agents' e-mail reply): only never reached.
    expect(inputs).toContain("node_modules/@modelcontextprotocol/sdk/dist/esm/validation/ajv-provider.js");
  }, 120_000);

  it("says what to do should anything construct the refused MCP client or use zod 3", async () => {
    const client = await import("../../src/lib/mcp-client-refusal");
    expect(() => new client.Client()).toThrow(/never connects to another MCP server/);
    expect(() => new client.StreamableHTTPClientTransport()).toThrow(/MCP client SDK is not bundled/);
    expect(() => client.validateClientMetadataUrl()).toThrow(/MCP client SDK is not bundled/);
    const zod3 = await import("../../src/lib/zod-v3-refusal");
    expect(() => zod3.object()).toThrow(/write schemas with zod 4/);
    expect(() => zod3.zodToJsonSchema()).toThrow(/zod 3 is not bundled/);
  });

  it("refuses a Cap'n Web session, should anything ask for one", async () => {
    const capnweb = await import("../../src/lib/capnweb-refusal");
    expect(() => capnweb.newWebSocketRpcSession()).toThrow(/opens no Cap'n Web sessions/);
  });

  it("says what to do should anything construct the refused ajv", async () => {
    const { default: Ajv } = await import("../../src/lib/ajv-refusal");
    expect(() => new (Ajv as unknown as new () => object)()).toThrow(
      /ajv is not bundled in this Worker .*give the MCP SDK a jsonSchemaValidator/,
    );
  });
});
