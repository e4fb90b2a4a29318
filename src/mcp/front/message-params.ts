/**
 * The params step of the /mcp front: the params of the methods whose handlers read them (initialize, the list methods'
 * cursor, tools/call, prompts/get, the resource methods, logging/setLevel) checked for their shape before either
 * era's server sees them. Both SDKs parse a request
 * against the protocol's schema before any handler runs and answer a mismatch as -32603 (internal error) with the
 * schema library's list of issues, which tells the client that the server broke. Here a mismatch is -32602 (invalid
 * params) naming the field, what it must be and what it was. What the fields hold (a tool's own arguments, a URI
 * this server serves) is checked later, by the governed core, as before.
 *
 * A JSON-RPC batch (protocol versions up to 2025-03-26) is passed on unchecked: one message's answer cannot stand for
 * the batch's, and the session's SDK answers each message of it.
 */
import { mcpEraOf, type McpEra } from "../era";
import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "../jsonrpc-error";
import { MAX_MCP_BODY_BYTES } from "./message-bounds";
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

const needsObject =
  (field: string, what: string): ParamsCheck =>
  (params) =>
    isObject(params[field]) ? undefined : `params.${field} must be ${what}, not ${kindOf(params[field])}`;

const uriCheck = needsString("uri", "a string (a URI from resources/list or a resource template)");

/** A list method's page cursor: absent, or the nextCursor string of the page before. */
const cursorCheck: ParamsCheck = ({ cursor }) =>
  cursor === undefined || typeof cursor === "string"
    ? undefined
    : `params.cursor must be the nextCursor string of the previous page (or left out for the first), ` +
      `not ${kindOf(cursor)}`;
const listMethod = { shape: "an object (or left out)", checks: [cursorCheck], optional: true as const };

const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/**
 * The methods checked, and what their params must hold. `optional`: the method may come without params.
 * `sessionEra`: checked only in a request of the 2025-11-25 era (era.ts decides, as the era router does), since the
 * method exists only there: 2026-07-28 removed initialize, logging/setLevel, resources/subscribe and unsubscribe,
 * which that lane answers 404 / -32601 (the conformance suite checks it).
 */
const CHECKS: Record<string, { shape: string; checks: ParamsCheck[]; sessionEra?: true; optional?: true }> = {
  initialize: {
    shape: "an object with protocolVersion, capabilities and clientInfo",
    checks: [
      needsString("protocolVersion", 'a string (a protocol version, e.g. "2025-11-25")'),
      needsObject("capabilities", "an object (the client's capabilities, {} for none)"),
      needsObject("clientInfo", "an object with the client's name and version"),
      ({ clientInfo }) =>
        isObject(clientInfo) && (typeof clientInfo.name !== "string" || typeof clientInfo.version !== "string")
          ? `params.clientInfo must hold a string name and a string version, ` +
            `not ${kindOf(clientInfo.name)} and ${kindOf(clientInfo.version)}`
          : undefined,
    ],
    sessionEra: true,
  },
  "logging/setLevel": {
    shape: "an object with a level",
    checks: [
      ({ level }) =>
        typeof level === "string" && LOG_LEVELS.includes(level)
          ? undefined
          : `params.level must be one of ${LOG_LEVELS.join(", ")}, ` +
            `not ${typeof level === "string" ? `"${level.slice(0, 40)}"` : kindOf(level)}`,
    ],
    sessionEra: true,
  },
  "tools/list": listMethod,
  "resources/list": listMethod,
  "resources/templates/list": listMethod,
  "prompts/list": listMethod,
  "tools/call": {
    shape: "an object with the tool's name and its arguments",
    checks: [
      needsString("name", "a string (a tool's name from tools/list)"),
      ({ arguments: args }) =>
        args === undefined || isObject(args)
          ? undefined
          : `params.arguments must be an object of the tool's arguments by name (its inputSchema in tools/list), ` +
            `not ${kindOf(args)}`,
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
  "resources/subscribe": { shape: "an object with the resource's uri", checks: [uriCheck], sessionEra: true },
  "resources/unsubscribe": { shape: "an object with the resource's uri", checks: [uriCheck], sessionEra: true },
};

/**
 * What is wrong with the params of one JSON-RPC message, or undefined (also for methods not checked here, and for
 * the session era's methods in a 2026-07-28 request).
 */
export async function paramsProblem(message: unknown, eraOf: () => Promise<McpEra>): Promise<string | undefined> {
  if (!isObject(message) || typeof message.method !== "string") return undefined;
  const check = Object.hasOwn(CHECKS, message.method) ? CHECKS[message.method] : undefined;
  if (!check || (check.sessionEra && (await eraOf()) !== "2025-11-25")) return undefined;
  if (message.params === undefined && check.optional) return undefined;
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
  const problem = await paramsProblem(parsed, () => mcpEraOf(front.request, parsed, MAX_MCP_BODY_BYTES));
  if (!problem) return undefined;
  // A JSON-RPC error answers a request; a notification (no id) with bad params is answered the same way, since
  // nothing else would tell its sender.
  return jsonRpcErrorResponse(
    200,
    { code: JSON_RPC_ERROR.invalidParams, message: `Invalid params: ${problem}` },
    { id: (parsed as { id?: unknown }).id },
  );
}
