/**
 * The params step of the /mcp front: the params of the methods whose handlers read them (tools/call, prompts/get and
 * the resource methods) checked for their shape before either era's server sees them. Both SDKs parse a request
 * against the protocol's schema before any handler runs and answer a mismatch as -32603 (internal error) with the
 * schema library's list of issues, which tells the client that the server broke. Here a mismatch is -32602 (invalid
 * params) naming the field, what it must be and what it was. What the fields hold (a tool's own arguments, a URI
 * this server serves) is checked later, by the governed core, as before.
 *
 * A JSON-RPC batch (protocol versions up to 2025-03-26) is passed on unchecked: one message's answer cannot stand for
 * the batch's, and the session's SDK answers each message of it.
 */
import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";

/** How a value is named in a message: "a string", "null", "an array", ... */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value === "undefined" ? "missing" : `a ${typeof value}`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type ParamsCheck = (params: Record<string, unknown>) => string | undefined;

const needsString =
  (field: string, what: string): ParamsCheck =>
  (params) =>
    typeof params[field] === "string" ? undefined : `params.${field} must be ${what}, not ${kindOf(params[field])}`;

const uriCheck = needsString("uri", "a string (a URI from resources/list or a resource template)");

/**
 * The methods checked, and what their params must hold. `inSession`: only a request of a 2025-11-25 session (it
 * carries Mcp-Session-Id) is checked, since the method exists only there: 2026-07-28 removed resources/subscribe and
 * unsubscribe, which that lane answers 404 / -32601 (the conformance suite checks it).
 */
const CHECKS: Record<string, { shape: string; checks: ParamsCheck[]; inSession?: true }> = {
  "tools/call": {
    shape: "an object with the tool's name and its arguments",
    checks: [
      needsString("name", "a string (a tool's name from tools/list)"),
      ({ arguments: args }) =>
        args === undefined || isObject(args)
          ? undefined
          : `params.arguments must be an object of the tool's arguments by name (its inputSchema in tools/list), not ${kindOf(args)}`,
    ],
  },
  "prompts/get": {
    shape: "an object with the prompt's name and its arguments",
    checks: [
      needsString("name", "a string (a prompt's name from prompts/list)"),
      ({ arguments: args }) => {
        if (args === undefined) return undefined;
        if (!isObject(args))
          return `params.arguments must be an object of the prompt's arguments by name, not ${kindOf(args)}`;
        const [name, value] = Object.entries(args).find(([, value]) => typeof value !== "string") ?? [];
        return name === undefined
          ? undefined
          : `params.arguments.${name} must be a string (prompt arguments are strings), not ${kindOf(value)}`;
      },
    ],
  },
  "resources/read": { shape: "an object with the resource's uri", checks: [uriCheck] },
  "resources/subscribe": { shape: "an object with the resource's uri", checks: [uriCheck], inSession: true },
  "resources/unsubscribe": { shape: "an object with the resource's uri", checks: [uriCheck], inSession: true },
};

/**
 * What is wrong with the params of one JSON-RPC message, or undefined (also for methods not checked here, and for
 * the session-only methods outside a session).
 */
export function paramsProblem(message: unknown, inSession: boolean): string | undefined {
  if (!isObject(message) || typeof message.method !== "string") return undefined;
  const check = Object.hasOwn(CHECKS, message.method) ? CHECKS[message.method] : undefined;
  if (!check || (check.inSession && !inSession)) return undefined;
  if (!isObject(message.params))
    return `${message.method}: params must be ${check.shape}, not ${kindOf(message.params)}.`;
  for (const rule of check.checks) {
    const problem = rule(message.params);
    if (problem) return `${message.method}: ${problem}.`;
  }
  return undefined;
}

export async function checkParams(front: FrontRequest): Promise<Response | undefined> {
  const parsed = front.message?.parsed;
  if (parsed === undefined || Array.isArray(parsed)) return undefined;
  const problem = paramsProblem(parsed, front.request.headers.has("mcp-session-id"));
  if (!problem) return undefined;
  // A JSON-RPC error answers a request; a notification (no id) with bad params is answered the same way, since
  // nothing else would tell its sender.
  return jsonRpcErrorResponse(
    200,
    { code: JSON_RPC_ERROR.invalidParams, message: `Invalid params: ${problem}` },
    { id: (parsed as { id?: unknown }).id },
  );
}
