/**
 * `tools/call` messages that name no tool of this server. Neither era's server runs them through the governed
 * core: the 2025-11-25 session answers -32602 itself, and in 2026-07-28 the SDK answers before any handler of
 * ours runs. The /mcp front therefore audits each one through the core (refuse), so that every tool call leaves
 * its record, and then lets the session or the SDK answer it as before. The record names the tool as the client
 * sent it only when that is a well-formed tool name: a client's text goes into no record otherwise.
 */
import { Failure } from "../core/failure";
import type { GovernedOperation } from "../core/governed";
import type { Catalog } from "./catalog";
import { TOOL_NAME_PATTERN } from "./context";
const NOT_A_NAME = "(not a tool name)";

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
      failure: new Failure("invalid_input", `Unknown tool ${shown}: call tools/list to see the tools this server offers.`).auditedAs("tools/call: unknown tool"),
    });
  }
  return unknown;
}
