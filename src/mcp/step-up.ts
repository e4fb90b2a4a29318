/**
 * Which messages of one POST to /mcp need scopes the token lacks, found before any session is touched so the
 * front can answer with the RFC 6750 step-up challenge (HTTP 403 insufficient_scope) that lets a client ask for
 * them. This is the scope step of the governed core (scopeGate) run ahead of the rest, on the same operations the
 * session and the listen hub govern. Covers every method that reads something behind a scope: tools/call,
 * resources/read, resources/subscribe, prompts/get and subscriptions/listen. Listing methods (tools/list,
 * resources/list, resources/templates/list, prompts/list) read nothing and need no scope: they stay open, as
 * discovery must. The session checks the same scopes again (through the core).
 */
import { Failure } from "../core/failure";
import { scopeGate, type GovernedOperation } from "../core/governed";
import type { Principal } from "../core/principal";
import type { Catalog } from "./catalog";
import { promptOperation, resourceOperation } from "./governed-capabilities";
import { toolOperation } from "./pipeline";
import { resourceLookup } from "./resource-lookup";
import { listenOperation } from "./stateless/listen-filter";

export interface ScopeRefusal {
  /** The JSON-RPC id of the refused request (undefined for a notification, which gets no answer). */
  id: string | number | undefined;
  method: string;
  /** The operation refused, exactly as the session (or the listen hub) would govern it. */
  operation: GovernedOperation;
  /** What the caller asked for, for the audit digest. */
  arguments: unknown;
  missing: string[];
  /** The core's insufficient_scope failure: says what needs which scope and how to get it. */
  failure: Failure;
}

const lookups = new WeakMap<Catalog, ReturnType<typeof resourceLookup>>();

/** The resource a URI names, resolved exactly as the session resolves it (resource-lookup.ts). */
function resourceTarget(catalog: Catalog, uri: string) {
  let lookup = lookups.get(catalog);
  if (!lookup) {
    lookup = resourceLookup(catalog);
    lookups.set(catalog, lookup);
  }
  const found = lookup(uri);
  return "found" in found ? found.found : undefined;
}

function operationOf(
  catalog: Catalog,
  method: string,
  params: Record<string, unknown>,
): { operation: GovernedOperation; arguments: unknown } | undefined {
  switch (method) {
    case "tools/call": {
      const tool = typeof params.name === "string" ? catalog.tools.get(params.name) : undefined;
      return tool && { operation: toolOperation(tool), arguments: params.arguments };
    }
    case "resources/read":
    case "resources/subscribe": {
      const target = typeof params.uri === "string" ? resourceTarget(catalog, params.uri) : undefined;
      return target && { operation: resourceOperation(target, method), arguments: { method, uri: params.uri } };
    }
    case "prompts/get": {
      const prompt = typeof params.name === "string" ? catalog.prompts.get(params.name) : undefined;
      return prompt && { operation: promptOperation(prompt), arguments: params.arguments };
    }
    case "subscriptions/listen": {
      // A filter that names nothing is refused by the listen hub with what is wrong; only scopes are stepped up.
      const operation = listenOperation(catalog, params);
      return operation instanceof Failure ? undefined : { operation, arguments: params };
    }
    default:
      return undefined;
  }
}

/** The messages of a (possibly batched) JSON-RPC body that need scopes `principal` does not hold. */
export function scopeRefusals(body: unknown, catalog: Catalog, principal: Principal): ScopeRefusal[] {
  const messages = Array.isArray(body) ? body : [body];
  const refused: ScopeRefusal[] = [];
  for (const message of messages) {
    if (!message || typeof message !== "object") continue;
    const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
    if (typeof method !== "string") continue;
    const needed = operationOf(
      catalog,
      method,
      params && typeof params === "object" ? (params as Record<string, unknown>) : {},
    );
    if (!needed) continue;
    const failure = scopeGate(needed.operation, principal);
    if (!failure) continue;
    refused.push({
      id: typeof id === "string" || typeof id === "number" ? id : undefined,
      method,
      operation: needed.operation,
      arguments: needed.arguments,
      missing: failure.details.missingScopes as string[],
      failure,
    });
  }
  return refused;
}
