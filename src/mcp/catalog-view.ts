/**
 * What both MCP lanes show of the catalog, written once: the server's name and instructions, the capabilities it
 * advertises, which tools a caller sees listed and how each is listed, the context a call runs with, and how a
 * governed operation's value or Failure becomes the answer. Each lane (session/server.ts on SDK 1.x for 2025-11-25
 * sessions, stateless/server.ts on SDK 2.x for 2026-07-28 requests) adapts only what its SDK names differently: the
 * request's metadata, how a notification is sent, which error class carries a JSON-RPC error.
 * test/worker/mcp/era-parity.test.ts drives the same inputs through both lanes.
 */
import { z } from "zod";
import type { Governed } from "../core/governed";
import { failureAsJsonRpcError, type JsonRpcErrorShape } from "../core/failure-mapping";
import type { Principal } from "../core/principal";
import { currentlyGrantable } from "../directory/grantable";
import type { Env } from "../env";
import { getPolicy } from "../policy/load";
import { ARBITER_VERSION } from "../version";
import type { Catalog } from "./catalog";
import type { CallContext, ToolDefinition } from "./context";
import { toolsListableFor } from "./tool-visibility";

export const SERVER_INFO = {
  name: "arbiter",
  title: "Arbiter",
  version: ARBITER_VERSION,
} as const;

export const SERVER_INSTRUCTIONS = [
  "Arbiter gives governed access to an organization's order data and API contracts.",
  "Order data: use the order tools (orders_search, orders_get_by_id); they run only allowlisted GraphQL operations, mask personal data unless you hold orders.pii, and never accept free-form GraphQL.",
  "Spec arbitration: read the active contract before writing code, call check_api_conformance before calling a task done, and use validate_response_payload to check real responses against the contract's schemas.",
  "Call whoami to see your organization, granted scopes and remaining quota. A failed conformance check is a normal result (approved: false); isError means the check could not run and says what to do next.",
].join(" ");

/**
 * What initialize (2025-11-25) and server/discover (2026-07-28) advertise for the catalog: its lists are fixed when
 * the isolate starts, so no list_changed notification is ever sent; resources can be subscribed to (in a session,
 * or on a subscriptions/listen stream).
 */
export const CATALOG_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
} as const;

/**
 * The tools listed to `principal`: a tool the caller's role can never be granted is left out (tool-visibility.ts).
 * A call of one never reaches a lane: the front refuses its missing scope with the 403 step-up first. `grantable`:
 * what the role may grant in the principal's organization (listableScopes), the platform's role when absent.
 */
export function toolsListedTo(catalog: Catalog, principal: Principal, grantable?: readonly string[]): ToolDefinition[] {
  return toolsListableFor(catalog.tools.values(), principal.role, getPolicy(), grantable);
}

/** What the principal's role may grant in its organization, its `roleCaps` included (from the isolate's cache). */
export async function listableScopes(env: Env, principal: Principal): Promise<readonly string[]> {
  return currentlyGrantable(env, principal.organizationId, principal.role);
}

export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema: { type: "object"; [key: string]: unknown };
  annotations: Record<string, unknown>;
  _meta: Record<string, unknown>;
}

/** What a tool's listing says beside its schemas: its title, description, annotations and the scopes it needs. */
export function toolListingFields(tool: ToolDefinition): Omit<ToolListing, "name" | "inputSchema" | "outputSchema"> {
  return {
    title: tool.title,
    description: tool.description,
    annotations: { title: tool.title, ...tool.annotations },
    _meta: { ...tool.listingMeta, requiredScopes: [...tool.requiredScopes] },
  };
}

/**
 * How a tool is listed: its own schemas as JSON Schema (validation stays in the governed core, so invalid input is
 * audited) beside toolListingFields. Converted once per isolate, when first listed.
 */
const listings = new WeakMap<ToolDefinition, ToolListing>();
export function toolListing(tool: ToolDefinition): ToolListing {
  let listing = listings.get(tool);
  if (!listing) {
    listing = {
      name: tool.name,
      ...toolListingFields(tool),
      inputSchema: z.toJSONSchema(tool.inputSchema, { io: "input" }) as ToolListing["inputSchema"],
      outputSchema: z.toJSONSchema(tool.outputSchema, { io: "output" }) as ToolListing["outputSchema"],
    };
    listings.set(tool, listing);
  }
  return listing;
}

export interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
}

/** What a lane knows of the request a call arrives in: the call's context but its progress, in the SDK's terms. */
export interface LaneRequest extends Omit<CallContext, "progress" | "quotas"> {
  /** The client's progress token, when it asked for progress. */
  progressToken: string | number | undefined;
  /** Sends a progress notification on this request's stream. */
  notify(notification: ProgressNotification): Promise<void>;
}

/** The context a tool, resource or prompt runs with, the same in both lanes. */
export function callContextOf(request: LaneRequest): CallContext {
  const { progressToken } = request;
  return {
    principal: request.principal,
    correlationId: request.correlationId,
    env: request.env,
    session: request.session,
    ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
    signal: request.signal,
    async progress(progress, total, message) {
      if (progressToken === undefined) return;
      await request.notify({
        method: "notifications/progress",
        params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) },
      });
    },
  };
}

/**
 * The value of a governed operation, or its Failure thrown as the JSON-RPC error the lane's SDK sends (`raise` builds
 * that SDK's error from the one mapping, src/core/failure-mapping.ts).
 */
export function answered<T>(
  outcome: Governed<T>,
  correlationId: string,
  raise: (error: JsonRpcErrorShape) => Error,
): T {
  if (outcome.ok) return outcome.value;
  throw raise(failureAsJsonRpcError(outcome.failure, correlationId));
}
