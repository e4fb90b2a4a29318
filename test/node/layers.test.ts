// The layering rules of docs/architecture.md "Architecture notes", read from every import (type-only ones too): only the
// named adapter files under src/ import `agents` or an MCP SDK; the engine is pure; the contracts domain imports no
// surface; REST, web and GraphQL do not import the MCP front; the core imports no surface, SDK or OAuth library;
// src/lib/ is a leaf; no import circle.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** The files allowed to import `agents` or an MCP SDK: the same list as docs/architecture.md "Architecture notes". */
const SDK_ADAPTERS = [
  "src/mcp/session/agent.ts",
  "src/mcp/announce.ts",
  "src/mcp/era.ts",
  "src/mcp/session/protocol-error.ts",
  "src/mcp/resource-lookup.ts",
  "src/mcp/session/server.ts",
  "src/mcp/stateless/handler.ts",
  "src/mcp/stateless/json-schema.ts",
  "src/mcp/stateless/listen-filter.ts",
  "src/mcp/stateless/listen-hub.ts",
  "src/mcp/stateless/server.ts",
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
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\b(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** The src/ files that `file` imports by relative path, as paths from the repository root. */
function localImportsOf(file: string): string[] {
  return specifiersOf(readFileSync(join(root, file), "utf8"))
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) =>
      relative(root, join(root, dirname(file), specifier))
        .split("\\")
        .join("/"),
    );
}

function filesImportingSdk(): string[] {
  return sourceFiles(join(root, "src"))
    .filter((file) =>
      specifiersOf(readFileSync(join(root, file), "utf8")).some((specifier) => SDK_SPECIFIER.test(specifier)),
    )
    .sort();
}

describe("imports of agents and the MCP SDKs", () => {
  it("finds the imports it is meant to find", () => {
    expect(specifiersOf(`import { McpAgent } from "agents/mcp";`)).toEqual(["agents/mcp"]);
    expect(specifiersOf(`import type {\n  McpServer,\n} from "@modelcontextprotocol/sdk/server/mcp.js";`)).toEqual([
      "@modelcontextprotocol/sdk/server/mcp.js",
    ]);
    expect(specifiersOf(`export { x } from '@modelcontextprotocol/server';`)).toEqual(["@modelcontextprotocol/server"]);
    expect(specifiersOf(`const m = await import("@modelcontextprotocol/client");`)).toEqual([
      "@modelcontextprotocol/client",
    ]);
    expect(SDK_SPECIFIER.test("agents-extra")).toBe(false);
    expect(SDK_SPECIFIER.test("./agents")).toBe(false);
  });

  it("happen only in the named adapter files", () => {
    const outside = filesImportingSdk().filter((file) => !SDK_ADAPTERS.includes(file));
    // A file listed here imports `agents` or an MCP SDK: go through src/mcp/context.ts (the capability interface)
    // instead, or, for a new protocol adapter, add it to SDK_ADAPTERS and docs/architecture.md "Architecture notes".
    expect(outside).toEqual([]);
  });

  it("keeps the list exact, so that it names only files that still need the SDK", () => {
    expect(filesImportingSdk()).toEqual([...SDK_ADAPTERS].sort());
  });

  it("matches the list in docs/architecture.md", () => {
    const readme = readFileSync(join(root, "docs/architecture.md"), "utf8");
    const notes = readme.split(/^## Architecture notes$/m)[1]?.split(/^## /m)[0];
    expect(notes, "docs/architecture.md has a '## Architecture notes' section").toBeDefined();
    const named = [...notes!.matchAll(/`(src\/[^`]+\.ts)`/g)].map((match) => match[1]!);
    for (const file of SDK_ADAPTERS) expect(named, `docs/architecture.md name ${file}`).toContain(file);
  });
});

/** `target` (a path from the repository root, as an import names it) as the file it resolves to, or null outside src/. */
function resolveLocal(target: string): string | null {
  for (const candidate of [target, `${target}.ts`, `${target}.d.ts`, `${target}/index.ts`]) {
    try {
      if (statSync(join(root, candidate)).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return null;
}

/** The import graph of src/: each file and the src/ files it imports, type-only imports and re-exports included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, "src"))) {
    const targets = localImportsOf(file).map((target) => resolveLocal(target.replace(/\?.*$/, "")));
    graph.set(file, [
      ...new Set(targets.filter((target): target is string => typeof target === "string" && target.startsWith("src/"))),
    ]);
  }
  return graph;
}

/** The import circles of `graph` (strongly connected components of two files or more, or a file importing itself), each sorted. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep chain of imports cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) circles.push(component.sort());
      }
    }
  }
  return circles;
}

/** Every import of a file under one of `folders` (src/ paths) whose target matches `forbidden`, as "file -> target". */
function crossingsFrom(folders: readonly string[], forbidden: RegExp, graph = importGraph()): string[] {
  return [...graph]
    .filter(([file]) => folders.some((folder) => file.startsWith(`${folder}/`)))
    .flatMap(([file, targets]) =>
      targets.filter((target) => forbidden.test(target)).map((target) => `${file} -> ${target}`),
    )
    .sort();
}

/** Package imports of the files under `folder` that match `forbidden`, as "file -> specifier". */
function packageImportsFrom(folder: string, forbidden: RegExp): string[] {
  return sourceFiles(join(root, folder)).flatMap((file) =>
    specifiersOf(readFileSync(join(root, file), "utf8"))
      .filter((specifier) => !specifier.startsWith(".") && forbidden.test(specifier))
      .map((specifier) => `${file} -> ${specifier}`),
  );
}

describe("the layer checks", () => {
  it("read type-only imports, and find a circle, a long chain and a file importing itself", () => {
    expect(specifiersOf(`import type { Env } from "../env";`)).toEqual(["../env"]);
    expect(specifiersOf(`export type { A } from "./a";`)).toEqual(["./a"]);
    expect(
      circlesOf(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"]]);
    expect(
      circlesOf(
        new Map([
          ["a", ["a"]],
          ["b", []],
        ]),
      ),
    ).toEqual([["a"]]);
    const chain = new Map(
      Array.from({ length: 20_000 }, (_, i) => [`f${i}`, i + 1 < 20_000 ? [`f${i + 1}`] : []] as [string, string[]]),
    );
    expect(circlesOf(chain)).toEqual([]);
  });
});

describe("layers", () => {
  it("keeps the engine pure: it imports only itself, src/lib/ and src/policy/, and no runtime module", () => {
    // The engine (src/engine/) is documents, rules, verdicts, payload and exchange validation and output formats:
    // no storage, no transport, no environment. The contracts domain calls it; it never calls the contracts domain.
    expect(crossingsFrom(["src/engine"], /^src\/(?!engine\/|lib\/|policy\/)/)).toEqual([]);
    expect(packageImportsFrom("src/engine", /^(cloudflare:|agents|@modelcontextprotocol\/|@cloudflare\/)/)).toEqual([]);
  });

  it("lets code outside the engine use only its face, src/engine/index.ts", () => {
    const deepImport = /^src\/engine\/(?!index\.ts$)/;
    const graph = importGraph();
    const outside = [...graph.keys()].filter((file) => file.startsWith("src/") && !file.startsWith("src/engine/"));
    const deep = [...graph]
      .filter(([file]) => outside.includes(file))
      .flatMap(([file, targets]) => targets.filter((target) => deepImport.test(target)).map((t) => `${file} -> ${t}`));
    expect(deep).toEqual([]);
    // The check finds a deep import when there is one.
    const planted = new Map(graph);
    planted.set("src/api/planted.ts", ["src/engine/verdict/config.ts"]);
    expect(crossingsFrom(["src/api"], deepImport, planted)).toEqual([
      "src/api/planted.ts -> src/engine/verdict/config.ts",
    ]);
  });

  it("keeps the contracts domain (store and services) free of every surface", () => {
    // The store reports changes to an injected ContractChangeListener (src/contracts/store/events.ts); services fail
    // with SpecFailure (the core's Failure), which each surface maps. Neither needs to import a surface.
    expect(crossingsFrom(["src/contracts"], /^src\/(mcp|tools|api|web|oauth|auth)\//)).toEqual([]);
    expect(packageImportsFrom("src/contracts", SDK_SPECIFIER)).toEqual([]);
  });

  it("keeps the contract store private to its services: surfaces call the use cases, never a store method", () => {
    // Outside src/contracts/, the store's modules are read only for record shapes, names and limits (pure data and
    // rules) or as types; src/index.ts exports the Durable Object class, as the Worker must. Everything else goes
    // through src/contracts/services/, and nothing outside reaches for its store access.
    const offenders = sourceFiles(join(root, "src"))
      .filter((file) => !file.startsWith("src/contracts/"))
      .flatMap((file) => storeReachOf(file, readFileSync(join(root, file), "utf8")));
    expect(offenders).toEqual([]);
    // The check finds each kind of reach when there is one.
    expect(storeReachOf("src/api/planted.ts", 'import { contractStore } from "../contracts/store/client";')).toEqual([
      "src/api/planted.ts -> src/contracts/store/client",
    ]);
    expect(storeReachOf("src/web/planted.ts", 'import { storeOf } from "../contracts/services/store-access";')).toEqual(
      ["src/web/planted.ts -> src/contracts/services/store-access"],
    );
    expect(
      storeReachOf("src/api/planted.ts", 'import type { ContractStoreStub } from "../contracts/store/client";'),
    ).toEqual([]);
    expect(storeReachOf("src/api/planted.ts", 'import { snapshotTitle } from "../contracts/store/records";')).toEqual(
      [],
    );
  });

  it("keeps the REST API, the web pages and the order-data layer from importing the MCP front", () => {
    // They reach tools, errors and principals through the governed core (src/core/), never through src/mcp/: /chat
    // runs its order tool with governed(), and the console gets the tool names from the composition (src/index.ts).
    expect(crossingsFrom(["src/api", "src/web", "src/graphql"], /^src\/mcp\//)).toEqual([]);
  });

  it("keeps the console's pages off the REST layer and the rate limiter's storage", () => {
    // A page asks the domain (src/ratelimit/keys.ts lists the counters of an organization); it neither imports a
    // REST module nor reads the KV namespace the limiter writes.
    expect(crossingsFrom(["src/web"], /^src\/api\//)).toEqual([]);
    const readsKv = sourceFiles(join(root, "src", "web")).filter((file) =>
      /\.RATE_LIMIT_KV\.(list|get|put)\(/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(readsKv).toEqual([]);
  });

  it("keeps the governed core free of every surface: no surface, no tool group, no SDK, no OAuth library", () => {
    const crossings = crossingsFrom(["src/core"], /^src\/(mcp|tools|api|web|auth|oauth|spec|engine|graphql)\//);
    const packages = packageImportsFrom("src/core", /^(agents|@modelcontextprotocol\/|@cloudflare\/|cloudflare:)/);
    // Surfaces call the core (src/core/governed.ts) and map its Failure (src/core/failure-mapping.ts); the core
    // knows only its principal (src/core/principal.ts, its own type), the audit record, the rate limiter's hook and
    // src/lib/.
    expect([...crossings, ...packages]).toEqual([]);
    expect(sourceFiles(join(root, "src", "core")).length).toBeGreaterThan(0);
  });

  it("has no import circle, type-only imports included", () => {
    // Bindings are typed by the RPC each Durable Object offers (src/env.ts), never by its class, and a type two
    // modules share lives in a module of its own: break a circle the same way.
    expect(circlesOf(importGraph())).toEqual([]);
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

  it("names each SHA-256 form once: bare hex (sha256Hex) and the stored content address (sha256Digest), both in src/lib/sha256.ts", () => {
    const definers = sourceFiles(join(root, "src")).filter((file) =>
      /export (async )?function sha256\w*\(/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(definers).toEqual(["src/lib/sha256.ts"]);
  });

  it("builds JSON-RPC error bodies in one place (src/mcp/jsonrpc-error.ts), with error codes by name", () => {
    const handBuilt = (source: string) =>
      /jsonrpc:\s*"2\.0"[^}]*\berror\b/.test(source) || /\bcode:\s*-32\d{3}\b/.test(source);
    // The check finds what it is meant to find.
    expect(handBuilt(`Response.json({ jsonrpc: "2.0", id: null, error: { code, message } })`)).toBe(true);
    expect(handBuilt(`refusal(id, { code: -32600, message: "no" })`)).toBe(true);
    expect(handBuilt(`refusal(id, { code: JSON_RPC_ERROR.invalidRequest, message: "no" })`)).toBe(false);
    // The MCP front, the listen hub and the core's mapping; the verdict view's page script talks to its host, not to
    // a client, and the failure table names its codes in one row each.
    const exempt = new Set([
      "src/mcp/jsonrpc-error.ts",
      "src/core/failure.ts",
      "src/tools/spec-arbitration/verdict-view.ts",
    ]);
    const offenders = sourceFiles(join(root, "src")).filter(
      (file) => !exempt.has(file) && handBuilt(readFileSync(join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  it("has one failure vocabulary: every *Failure class is the core's Failure (one table gives its status, outcome, JSON-RPC code)", () => {
    const declared = (source: string) => [...source.matchAll(/class (\w*Failure) extends (\w+)/g)];
    // The check finds what it is meant to find.
    expect(declared("export class GatewayFailure extends Error {").map((m) => m[2])).toEqual(["Error"]);
    const offenders = sourceFiles(join(root, "src")).flatMap((file) =>
      declared(readFileSync(join(root, file), "utf8"))
        .filter(([, name, base]) => !(name === "Failure" && base === "Error") && base !== "Failure")
        .map(([, name, base]) => `${file}: ${name} extends ${base}`),
    );
    expect(offenders).toEqual([]);
  });

  it("has the REST router take each Failure as it is, never reading an answer's body back", () => {
    const router = readFileSync(join(root, "src/api/router.ts"), "utf8");
    expect(router).not.toMatch(/\.(json|text|arrayBuffer|clone)\(\)/);
  });

  it("has the two MCP lanes (by era) share one catalog view and neither import the other", () => {
    const lanes = { session: "src/mcp/session/server.ts", stateless: "src/mcp/stateless/server.ts" };
    for (const [lane, file] of Object.entries(lanes)) {
      const imports = localImportsOf(file);
      const source = readFileSync(join(root, file), "utf8");
      // What a caller sees listed, the call's context and the answer's error come from src/mcp/catalog-view.ts.
      expect(imports, file).toContain("src/mcp/catalog-view");
      expect(
        imports.filter((target) => target.startsWith(`src/mcp/${lane === "session" ? "stateless" : "session"}/`)),
        file,
      ).toEqual([]);
      expect(imports, file).not.toContain("src/mcp/tool-visibility");
      expect(source, file).not.toMatch(
        /z\.toJSONSchema|failureAsJsonRpcError|"notifications\/progress"|SERVER_INFO = /,
      );
    }
  });

  it("keeps the folders of src/ from importing each other, but for the pairs named here", () => {
    // Two folders that import each other make arrows that climb back up whichever floor each stands on. What is
    // left: signing in accepts a pending invitation through the organization services (src/auth/invitations.ts ->
    // src/organizations/admin.ts), which check an identity provider's settings by its discovery document
    // (src/auth/oidc-discovery.ts); and the tool groups are written against the MCP capability interface
    // (src/mcp/context.ts), while the deployment's catalog (src/mcp/deployment-catalog.ts) is composed from them.
    const known = ["auth <-> organizations", "mcp <-> tools"];
    const folderOf = (file: string) => file.split("/")[1]!;
    const pairs = new Set<string>();
    for (const [file, targets] of importGraph())
      for (const target of targets)
        if (folderOf(file) !== folderOf(target)) pairs.add(`${folderOf(file)} -> ${folderOf(target)}`);
    const mutual = [...pairs]
      .map((pair) => pair.split(" -> ") as [string, string])
      .filter(([a, b]) => a < b && pairs.has(`${b} -> ${a}`))
      .map(([a, b]) => `${a} <-> ${b}`)
      .sort();
    expect(mutual).toEqual(known);
  });

  it("keeps src/env.ts a leaf: each Durable Object binding is declared beside its RPC, not imported from above", () => {
    expect(localImportsOf("src/env.ts")).toEqual([]);
    // Every Durable Object binding of wrangler.toml is declared somewhere, typed by an RPC interface.
    const declared = sourceFiles(join(root, "src")).flatMap((file) =>
      [...readFileSync(join(root, file), "utf8").matchAll(/^\s+([A-Z_]+): DurableObjectNamespace<(\w+Rpc)>;/gm)].map(
        (match) => match[1],
      ),
    );
    const bound = [...readFileSync(join(root, "wrangler.toml"), "utf8").matchAll(/^name = "([A-Z_]+)"/gm)].map(
      (match) => match[1],
    );
    expect(bound.length).toBeGreaterThan(0);
    expect([...new Set(declared)].sort()).toEqual([...new Set(bound)].sort());
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

/** The names `file` imports from each local module, as `module path -> name` (type-only names too). */
function namedImportsOf(file: string): Array<{ from: string; name: string }> {
  const source = readFileSync(join(root, file), "utf8");
  const found: Array<{ from: string; name: string }> = [];
  for (const match of source.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["'](\.[^"']+)["']/g)) {
    const from = relative(root, join(root, dirname(file), match[2]!))
      .split("\\")
      .join("/");
    for (const part of match[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name) found.push({ from, name });
    }
  }
  return found;
}

/** The functions that change organization data for the console (CI keys, grants) and the audit writers. */
const CONSOLE_WRITES: Record<string, readonly string[]> = {
  "src/oauth/cikey-admin": ["createCiKey", "revokeCiKey"],
  "src/oauth/connected-clients": ["revokeConnectedGrant"],
};
const AUDIT_WRITERS = ["src/audit/sink", "src/audit/store", "src/core/governed"];

describe("the console's writes and audit go through the governed core", () => {
  const consoleFiles = sourceFiles(join(root, "src/web/console"));

  it("finds the named imports it is meant to find", () => {
    expect(namedImportsOf("src/web/console/actions.ts")).toContainEqual({
      from: "src/oauth/cikey-admin",
      name: "createCiKey",
    });
  });

  it("calls the key and grant writes only from the governed actions (src/web/console/actions.ts)", () => {
    const callers = consoleFiles.flatMap((file) =>
      namedImportsOf(file)
        .filter(({ from, name }) => CONSOLE_WRITES[from]?.includes(name))
        .map(({ name }) => `${file} -> ${name}`),
    );
    expect(callers.sort()).toEqual([
      "src/web/console/actions.ts -> createCiKey",
      "src/web/console/actions.ts -> revokeCiKey",
      "src/web/console/actions.ts -> revokeConnectedGrant",
    ]);
    expect(localImportsOf("src/web/console/actions.ts")).toContain("src/web/console/governed");
  });

  it("writes audit records only through the console's adapter of the core (src/web/console/governed.ts)", () => {
    const writers = consoleFiles.flatMap((file) =>
      localImportsOf(file)
        .filter((target) => AUDIT_WRITERS.includes(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(writers.sort()).toEqual([
      "src/web/console/governed.ts -> src/audit/sink",
      "src/web/console/governed.ts -> src/core/governed",
    ]);
  });
});

/** Store modules whose values any layer may use: record shapes and titles, project names, size limits. */
const STORE_DATA_MODULES = new Set([
  "src/contracts/store/records",
  "src/contracts/store/names",
  "src/contracts/store/limits",
]);

/**
 * The imports of `file` (its `source`) that reach the contract store around its services: a value import of a store
 * module other than its data modules, or any import of the services' store access.
 */
function storeReachOf(file: string, source: string): string[] {
  const reached: string[] = [];
  for (const match of source.matchAll(/\b(?:import|export)\s+(type\s+)?[^;'"]*?\bfrom\s*["'](\.[^"']+)["']/g)) {
    const target = relative(root, join(root, dirname(file), match[2]!))
      .split("\\")
      .join("/");
    const typeOnly = match[1] !== undefined;
    const storeValue = target.startsWith("src/contracts/store/") && !typeOnly && !STORE_DATA_MODULES.has(target);
    const workerExport = file === "src/index.ts" && target === "src/contracts/store/durable-object";
    if ((storeValue && !workerExport) || target === "src/contracts/services/store-access")
      reached.push(`${file} -> ${target}`);
  }
  return reached;
}
