// The layering rules of the README's "Architecture notes": only the named adapter files under src/ import `agents`
// or an MCP SDK; the contract engine, its services and its storage import no transport; src/lib/ is a leaf.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** The files allowed to import `agents` or an MCP SDK: the same list as the README's "Architecture notes". */
const SDK_ADAPTERS = [
  "src/mcp/agent.ts",
  "src/mcp/announce.ts",
  "src/mcp/era.ts",
  "src/mcp/protocol-error.ts",
  "src/mcp/resource-lookup.ts",
  "src/mcp/server.ts",
  "src/mcp/v2/handler.ts",
  "src/mcp/v2/json-schema.ts",
  "src/mcp/v2/listen-filter.ts",
  "src/mcp/v2/listen-hub.ts",
  "src/mcp/v2/server.ts",
];

/** A module specifier naming `agents` or an MCP SDK package, or a subpath of one. */
const SDK_SPECIFIER = /^(agents|@modelcontextprotocol\/(sdk|server|client))(\/|$)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [relative(root, path).split("\\").join("/")] : [];
  });
}

/** Every module specifier of `source`: static imports and re-exports (type-only ones too), dynamic imports, require. */
export function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']/g, /\bimport\s*["']([^"']+)["']/g, /\b(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** The src/ files that `file` imports by relative path, as paths from the repository root. */
function localImportsOf(file: string): string[] {
  return specifiersOf(readFileSync(join(root, file), "utf8"))
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(root, join(root, dirname(file), specifier)).split("\\").join("/"));
}

function filesImportingSdk(): string[] {
  return sourceFiles(join(root, "src"))
    .filter((file) => specifiersOf(readFileSync(join(root, file), "utf8")).some((specifier) => SDK_SPECIFIER.test(specifier)))
    .sort();
}

describe("imports of agents and the MCP SDKs", () => {
  it("finds the imports it is meant to find", () => {
    expect(specifiersOf(`import { McpAgent } from "agents/mcp";`)).toEqual(["agents/mcp"]);
    expect(specifiersOf(`import type {\n  McpServer,\n} from "@modelcontextprotocol/sdk/server/mcp.js";`)).toEqual(["@modelcontextprotocol/sdk/server/mcp.js"]);
    expect(specifiersOf(`export { x } from '@modelcontextprotocol/server';`)).toEqual(["@modelcontextprotocol/server"]);
    expect(specifiersOf(`const m = await import("@modelcontextprotocol/client");`)).toEqual(["@modelcontextprotocol/client"]);
    expect(SDK_SPECIFIER.test("agents-extra")).toBe(false);
    expect(SDK_SPECIFIER.test("./agents")).toBe(false);
  });

  it("happen only in the named adapter files", () => {
    const outside = filesImportingSdk().filter((file) => !SDK_ADAPTERS.includes(file));
    // A file listed here imports `agents` or an MCP SDK: go through src/mcp/context.ts (the capability interface)
    // instead, or, for a new protocol adapter, add it to SDK_ADAPTERS and the README's "Architecture notes".
    expect(outside).toEqual([]);
  });

  it("keeps the list exact, so that it names only files that still need the SDK", () => {
    expect(filesImportingSdk()).toEqual([...SDK_ADAPTERS].sort());
  });

  it("matches the list in the README's Architecture notes", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const notes = readme.split(/^## Architecture notes$/m)[1]?.split(/^## /m)[0];
    expect(notes, "README.md has a '## Architecture notes' section").toBeDefined();
    const named = [...notes!.matchAll(/`(src\/[^`]+\.ts)`/g)].map((match) => match[1]!);
    for (const file of SDK_ADAPTERS) expect(named, `README's Architecture notes name ${file}`).toContain(file);
  });
});

describe("layers", () => {
  it("keeps the contract engine, its services and its storage free of any transport", () => {
    const transports = /^src\/(mcp|tools|api|web|oauth)(\/|$)/;
    const crossings = sourceFiles(join(root, "src", "contracts")).flatMap((file) =>
      localImportsOf(file)
        .filter((target) => transports.test(target))
        .map((target) => `${file} -> ${target}`),
    );
    // The store reports changes to an injected ContractChangeListener (src/spec/store/events.ts); services fail
    // with SpecFailure, which the MCP surface maps. Neither needs to import a transport.
    expect(crossings).toEqual([]);
  });

  it("keeps the governed core free of every surface: no transport, no tool group, no SDK", () => {
    const surfaces = /^src\/(mcp|tools|api|web|auth|oauth|contracts|graphql)(\/|$)/;
    const crossings = sourceFiles(join(root, "src", "core")).flatMap((file) => [
      ...localImportsOf(file)
        .filter((target) => surfaces.test(target) && !/^src\/(oauth\/servers|web\/log)$/.test(target))
        .map((target) => `${file} -> ${target}`),
      ...specifiersOf(readFileSync(join(root, file), "utf8"))
        .filter((specifier) => SDK_SPECIFIER.test(specifier) || specifier.startsWith("@cloudflare/"))
        .map((specifier) => `${file} -> ${specifier}`),
    ]);
    // Surfaces call the core (src/core/governed.ts) and map its Failure (src/core/failure-mapping.ts); the core
    // knows only the principal, the audit sink, the rate limiter and the log (src/lib/log.ts); src/oauth/servers.ts
    // gives it GrantProps, a type.
    expect(crossings).toEqual([]);
    expect(sourceFiles(join(root, "src", "core")).length).toBeGreaterThan(0);
  });

  it("writes SHA-256 hex and base64url once: src/lib/sha256.ts and jose, nowhere by hand", () => {
    const byHand = [
      /\.toString\(16\)\.padStart\(2/, // bytes to hex
      /replace\(\/\\\+\/g, "-"\)/, // base64 to base64url
    ];
    const offenders = sourceFiles(join(root, "src"))
      .filter((file) => !file.startsWith("src/lib/"))
      .filter((file) => {
        const source = readFileSync(join(root, file), "utf8");
        // A SHA-256 digest is hex through src/lib/sha256.ts; PKCE's S256 challenge (base64url of a digest) is the
        // one other digest, in src/auth/oidc-state.ts, encoded with jose.
        const digestByHand = /subtle\.digest\(/.test(source) && file !== "src/auth/oidc-state.ts";
        // Random bytes shown as hex (a CI key's id) are not a digest: lines that draw them are left out.
        const lines = source.split("\n").filter((line) => !line.includes("getRandomValues"));
        return digestByHand || lines.some((line) => byHand.some((pattern) => pattern.test(line)));
      });
    expect(offenders).toEqual([]);
  });

  it("keeps src/lib/ a leaf that imports nothing else of src/", () => {
    const crossings = sourceFiles(join(root, "src", "lib")).flatMap((file) =>
      localImportsOf(file)
        .filter((target) => !target.startsWith("src/lib/"))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });
});
