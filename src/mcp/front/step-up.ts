/**
 * Which messages of one POST to /mcp need scopes the token lacks, found before any session is touched so the
 * front can answer with the RFC 6750 step-up challenge (HTTP 403 insufficient_scope) that lets a client ask for
 * them. This is the scope step of the governed core (scopeGate) run ahead of the rest, on the same operations the
 * session and the listen hub govern. Covers every method that reads something behind a scope: tools/call,
 * resources/read, resources/subscribe, prompts/get and subscriptions/listen. Listing methods (tools/list,
 * resources/list, resources/templates/list, prompts/list) read nothing and need no scope: they stay open, as
 * discovery must. The session checks the same scopes again (through the core).
 */
import { Failure } from "../../core/failure";
import { refuse, scopeGate, type GovernedOperation } from "../../core/governed";
import type { Principal } from "../../core/principal";
import type { Catalog } from "../catalog";
import { promptOperation, resourceOperation } from "../governed-capabilities";
import { toolOperation } from "../../core/tool-call";
import { resourceLookup } from "../resource-lookup";
import { listenOperation } from "../stateless/listen-filter";
import { insufficientScope } from "@cloudflare/workers-oauth-provider";
import { pipelineDepsFor } from "../deps";
import { getCatalog } from "../deployment-catalog";
import { JSON_RPC_ERROR, jsonRpcErrorBody } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";

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

/** The resource a URI names, resolved exactly as the session resolves it (resource-lookup.ts). */
function resourceTarget(catalog: Catalog, uri: string) {
  const found = resourceLookup(catalog)(uri);
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

/**
 * The 403 step-up answer: the challenge names every scope the client should ask for (what it holds plus what
 * is missing); the body is a JSON-RPC error per request of the POST, for clients that ignore status codes.
 */
function stepUpResponse(auth: FrontRequest["auth"], body: unknown, refused: readonly ScopeRefusal[]): Response {
  const missing = [...new Set(refused.flatMap((refusal) => refusal.missing))];
  const challenge = insufficientScope(
    auth,
    [...new Set([...auth.scope, ...missing])],
    `This request needs the scope ${missing.join(" ")}`,
  );
  const byId = new Map(refused.filter((refusal) => refusal.id !== undefined).map((refusal) => [refusal.id, refusal]));
  const errorFor = (id: string | number | null, refusal: ScopeRefusal | undefined) =>
    jsonRpcErrorBody(id, {
      code: JSON_RPC_ERROR.invalidRequest,
      message:
        refusal?.failure.message ??
        `Not processed: another message of this batch needs the OAuth scope ${missing.join(", ")}, which this token lacks.`,
      data: { missingScopes: refusal?.missing ?? missing },
    });
  let payload: unknown;
  if (Array.isArray(body)) {
    const ids = body
      .map((message) => (message && typeof message === "object" ? (message as { id?: unknown }).id : undefined))
      .filter((id): id is string | number => typeof id === "string" || typeof id === "number");
    payload = ids.map((id) => errorFor(id, byId.get(id)));
  } else {
    payload = errorFor(refused[0]!.id ?? null, refused[0]);
  }
  return new Response(JSON.stringify(payload), { status: 403, headers: challenge.headers });
}

/**
 * The step-up step of the /mcp front: a POST with a message that needs a scope the token lacks is answered with the
 * 403 challenge before any session is touched; the core audits each refused message as its scope step would.
 */
export async function stepUp(front: FrontRequest): Promise<Response | undefined> {
  if (!front.message) return undefined;
  const { env, principal, correlationId } = front;
  const refused = scopeRefusals(front.message.parsed, getCatalog(), principal);
  if (refused.length === 0) return undefined;
  const deps = pipelineDepsFor(env);
  for (const refusal of refused) {
    await refuse(
      refusal.operation,
      { principal, correlationId, arguments: refusal.arguments, deps },
      refusal.failure,
      (reason) => `${refusal.method}: ${reason} (HTTP 403 step-up)`,
    );
  }
  return stepUpResponse(front.auth, front.message.parsed, refused);
}
