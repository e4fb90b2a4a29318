/**
 * Which messages of one POST to /mcp need scopes the token lacks, found before any session is touched so the
 * front can answer with the RFC 6750 step-up challenge (HTTP 403 insufficient_scope) that lets a client ask for
 * them. Covers every method that reads something behind a scope: tools/call, resources/read,
 * resources/subscribe and prompts/get. Listing methods (tools/list, resources/list, resources/templates/list,
 * prompts/list) read nothing and need no scope: they stay open, as discovery must.
 * The session checks the same scopes again (server.ts, pipeline.ts).
 */
import type { AuditKind } from "../audit/record";
import { missingScopes, type Catalog } from "./catalog";
import { resourceLookup } from "./resource-lookup";

export interface ScopeRefusal {
  /** The JSON-RPC id of the refused request (undefined for a notification, which gets no answer). */
  id: string | number | undefined;
  method: string;
  kind: Extract<AuditKind, "tool" | "resource" | "prompt">;
  /** What is refused, from the catalog (never the caller's text): tool or prompt name, resource URI or URI template. */
  target: string;
  /** What the caller asked for, for the audit digest. */
  arguments: unknown;
  missing: string[];
  /** Says what needs which scope and how to get it. */
  message: string;
}

interface Needed {
  kind: ScopeRefusal["kind"];
  target: string;
  what: string;
  required: readonly string[];
  arguments: unknown;
}

const lookups = new WeakMap<Catalog, ReturnType<typeof resourceLookup>>();

/** The resource a URI names, resolved exactly as the session resolves it (resource-lookup.ts). */
function resourceNeeds(catalog: Catalog, uri: string): Omit<Needed, "kind" | "arguments"> | undefined {
  let lookup = lookups.get(catalog);
  if (!lookup) {
    lookup = resourceLookup(catalog);
    lookups.set(catalog, lookup);
  }
  const found = lookup(uri);
  if (!("found" in found)) return undefined;
  return { target: found.found.label, what: found.found.label, required: found.found.requiredScopes };
}

function needsOf(catalog: Catalog, method: string, params: Record<string, unknown>): Needed | undefined {
  switch (method) {
    case "tools/call": {
      const tool = typeof params.name === "string" ? catalog.tools.get(params.name) : undefined;
      return tool && { kind: "tool", target: tool.name, what: tool.name, required: tool.requiredScopes, arguments: params.arguments };
    }
    case "resources/read":
    case "resources/subscribe": {
      const found = typeof params.uri === "string" ? resourceNeeds(catalog, params.uri) : undefined;
      return found && { kind: "resource", ...found, arguments: { method, uri: params.uri } };
    }
    case "prompts/get": {
      const prompt = typeof params.name === "string" ? catalog.prompts.get(params.name) : undefined;
      return prompt && { kind: "prompt", target: prompt.name, what: `the prompt ${prompt.name}`, required: prompt.requiredScopes, arguments: params.arguments };
    }
    default:
      return undefined;
  }
}

/** The messages of a (possibly batched) JSON-RPC body that need scopes `granted` does not hold. */
export function scopeRefusals(body: unknown, catalog: Catalog, granted: readonly string[]): ScopeRefusal[] {
  const messages = Array.isArray(body) ? body : [body];
  const refused: ScopeRefusal[] = [];
  for (const message of messages) {
    if (!message || typeof message !== "object") continue;
    const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
    if (typeof method !== "string") continue;
    const needed = needsOf(catalog, method, params && typeof params === "object" ? (params as Record<string, unknown>) : {});
    if (!needed) continue;
    const missing = missingScopes(granted, needed.required);
    if (missing.length === 0) continue;
    refused.push({
      id: typeof id === "string" || typeof id === "number" ? id : undefined,
      method,
      kind: needed.kind,
      target: needed.target,
      arguments: needed.arguments,
      missing,
      message:
        `Insufficient scope: ${needed.what} needs the OAuth scope ${missing.map((s) => `"${s}"`).join(", ")}. ` +
        `Reconnect this client and grant ${missing.length > 1 ? "them" : "it"} on the consent page.`,
    });
  }
  return refused;
}
