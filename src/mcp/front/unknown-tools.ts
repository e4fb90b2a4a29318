/**
 * `tools/call` messages that name no tool of this server. Neither era's server runs them through the governed
 * core: the 2025-11-25 session answers -32602 itself, and in 2026-07-28 the SDK answers before any handler of
 * ours runs. The /mcp front therefore audits each one through the core (refuse), so that every tool call leaves
 * its record, and then lets the session or the SDK answer it as before. The record names the tool as the client
 * sent it only when that is a well-formed tool name: a client's text goes into no record otherwise.
 *
 * Such calls run nothing, but each costs an audit write, so they count against a quota of their own
 * (UNKNOWN_TOOLS_RATE_LIMIT_TARGET, the policy's default quota unless rate-limits.json names it), and identical
 * refusals of one request (a batch naming the same unknown tool 25 times) fold into one record with the count.
 * Calls of this server's tools whose params are misshapen (misshapenToolCalls) are audited the same way, since
 * neither SDK lets them reach the core either; the params step after this one answers them.
 */
import { Failure } from "../../core/failure";
import { refuse, type GovernedCall, type GovernedOperation } from "../../core/governed";
import type { Catalog } from "../catalog";
import { TOOL_NAME_PATTERN } from "../context";
import { failureAsJsonRpcError } from "../../core/failure-mapping";
import { toolsServedBesideCatalog } from "../bench-bare";
import { pipelineDepsFor } from "../deps";
import { getCatalog } from "../deployment-catalog";
import { jsonRpcErrorResponse } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";
import { paramsProblem } from "./message-params";
const NOT_A_NAME = "(not a tool name)";

/** The quota every call of a tool that does not exist counts against (per organization and client). */
export const UNKNOWN_TOOLS_RATE_LIMIT_TARGET = "unknown-tools";

export interface UnknownToolCall {
  /** The operation the record is written for: no scope, no quota (it runs nothing). */
  operation: GovernedOperation;
  /** What the caller sent as arguments, for the record's digest. */
  arguments: unknown;
  failure: Failure;
}

/** The `tools/call` messages of a (possibly batched) body whose tool is not in `catalog` nor in `alsoServed`. */
export function unknownToolCalls(body: unknown, catalog: Catalog, alsoServed: ReadonlySet<string>): UnknownToolCall[] {
  const messages = Array.isArray(body) ? body : [body];
  const unknown: UnknownToolCall[] = [];
  for (const message of messages) {
    if (!message || typeof message !== "object" || (message as { method?: unknown }).method !== "tools/call") continue;
    const params = (message as { params?: unknown }).params;
    const fields = params && typeof params === "object" ? (params as { name?: unknown; arguments?: unknown }) : {};
    const name = fields.name;
    if (typeof name === "string" && (catalog.tools.has(name) || alsoServed.has(name))) continue;
    const shown = typeof name === "string" && TOOL_NAME_PATTERN.test(name) ? name : NOT_A_NAME;
    unknown.push({
      operation: { kind: "tool", target: shown, label: `the tool ${shown}`, requiredScopes: [], rateLimit: null },
      arguments: fields.arguments,
      failure: new Failure(
        "invalid_input",
        `Unknown tool ${shown}: call tools/list to see the tools this server offers.`,
      ).auditedAs("tools/call: unknown tool"),
    });
  }
  return unknown;
}

/** What the front does with a request's unknown-tool calls: forward it (they were audited) or refuse it (quota). */
export type UnknownToolsOutcome = { refused: false } | { refused: true; failure: Failure };

/**
 * The `tools/call` messages of a (possibly batched) body that name a tool of this server with params the params step
 * refuses (message-params.ts: arguments that are not an object). They run nothing either, and neither SDK lets them
 * reach the governed core, so they are audited here like calls of unknown tools, under the same quota.
 */
export async function misshapenToolCalls(
  body: unknown,
  catalog: Catalog,
  alsoServed: ReadonlySet<string>,
): Promise<UnknownToolCall[]> {
  const misshapen: UnknownToolCall[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!message || typeof message !== "object" || (message as { method?: unknown }).method !== "tools/call") continue;
    // tools/call is a method of both eras: the era is never asked.
    const problem = await paramsProblem(message, async () => "2025-11-25");
    const name = (message as { params?: { name?: unknown } }).params?.name;
    if (!problem || typeof name !== "string" || !(catalog.tools.has(name) || alsoServed.has(name))) continue;
    misshapen.push({
      operation: { kind: "tool", target: name, label: `the tool ${name}`, requiredScopes: [], rateLimit: null },
      arguments: (message as { params: { arguments?: unknown } }).params.arguments,
      failure: new Failure("invalid_input", problem).auditedAs("tools/call: misshapen params"),
    });
  }
  return misshapen;
}

/**
 * Counts each call against the quota (stopping at the first refusal: the rest of the request is refused with
 * it) and writes one audit record per distinct refusal of the request, its reason saying how many calls it
 * stands for.
 */
export async function auditUnknownToolCalls(
  calls: readonly UnknownToolCall[],
  call: Omit<GovernedCall, "arguments">,
): Promise<UnknownToolsOutcome> {
  let failure: Failure | undefined;
  let counted = 0;
  for (const _ of calls) {
    const decision = await call.deps.rateLimiter.check({
      organizationId: call.principal.organizationId,
      clientId: call.principal.clientId,
      target: UNKNOWN_TOOLS_RATE_LIMIT_TARGET,
    });
    if (!decision.allowed) {
      failure = new Failure(
        "rate_limited",
        `Rate limit reached: calls of tools that do not exist count against a quota of ${decision.limit} per ${decision.windowSeconds} s for this client. Call tools/list to see the tools this server offers, and retry after ${decision.retryAfterSeconds} s.`,
        { retryAfter: decision.retryAfterSeconds, limit: decision.limit, windowSeconds: decision.windowSeconds },
      ).auditedAs("tools/call: unknown tool, rate limited");
      break;
    }
    counted++;
  }
  const groups = new Map<string, { first: UnknownToolCall; count: number; limited: number }>();
  calls.forEach((unknown, position) => {
    const group = groups.get(unknown.operation.target) ?? { first: unknown, count: 0, limited: 0 };
    group.count++;
    if (position >= counted) group.limited++;
    groups.set(unknown.operation.target, group);
  });
  for (const { first, count, limited } of groups.values()) {
    const refusal = limited > 0 && failure ? failure : first.failure;
    const times = count > 1 ? ` (x${count} in one request)` : "";
    await refuse(first.operation, { ...call, arguments: first.arguments }, refusal, (reason) => `${reason}${times}`);
  }
  return failure ? { refused: true, failure } : { refused: false };
}

/**
 * The unknown-tool step of the /mcp front: calls of tools that do not exist are answered by the lane (the session
 * or the SDK), but audited here, under a rate limit of their own; past it, the POST is refused with 429.
 */
export async function auditUnknownTools(front: FrontRequest): Promise<Response | undefined> {
  if (!front.message) return undefined;
  const { env, principal, correlationId } = front;
  const unknown = [
    ...unknownToolCalls(front.message.parsed, getCatalog(), toolsServedBesideCatalog(env)),
    ...(await misshapenToolCalls(front.message.parsed, getCatalog(), toolsServedBesideCatalog(env))),
  ];
  if (unknown.length === 0) return undefined;
  const outcome = await auditUnknownToolCalls(unknown, { principal, correlationId, deps: pipelineDepsFor(env) });
  if (!outcome.refused) return undefined;
  return jsonRpcErrorResponse(429, failureAsJsonRpcError(outcome.failure, correlationId), {
    headers: { "Retry-After": String(outcome.failure.details.retryAfter ?? 60) },
  });
}
