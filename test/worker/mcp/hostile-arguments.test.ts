/**
 * Every tool the catalog lists, called in both protocol eras with malformed arguments: each property of its input
 * schema given a value of the wrong type, an over-long string or markup, and the arguments themselves missing,
 * null, an array or a string. Every answer must be a JSON-RPC result or error with a message (a tool error or
 * invalid params), never an HTTP 5xx, an internal error or a stack trace.
 */
import { describe, expect, it } from "vitest";
import { getPolicy } from "../../../src/policy/load";
import { mcpPrincipal, type Caller } from "../harness";
import { initializeSession, mcpPost, modernPost, readRpc } from "../helpers";

const MARKUP = "<script>alert(1)</script>";
const WRONG_VALUES: unknown[] = [12345, "not-a-number", null, [1, "two"], { nested: { deeper: true } }, true];
const LONG = "x".repeat(100_000);

/**
 * An administrator with every /mcp scope, as a new OAuth client every 25 calls: the per-client quota of a tool (30
 * a minute, policies/rate-limits.json) would otherwise refuse most of these calls before they reach the tool.
 */
let current: { caller: Caller; calls: number; sessionId?: string } | undefined;
async function admin(era: "session" | "stateless"): Promise<{ caller: Caller; sessionId?: string }> {
  if (!current || current.calls >= 25) {
    const policy = getPolicy();
    const scopes = policy.scopeNames.filter((scope) => policy.scopes[scope]?.resources.includes("mcp"));
    current = { caller: mcpPrincipal("ana", scopes.join(" ")), calls: 0 };
  }
  if (era === "session" && !current.sessionId) current.sessionId = await initializeSession(current.caller);
  current.calls++;
  return current;
}

type Tool = { name: string; inputSchema: { properties?: Record<string, { "x-mcp-header"?: string }> } };

/**
 * The `Mcp-Param-*` headers a 2026-07-28 client sends beside the arguments (SEP-2243): one per property the tool
 * declares with `x-mcp-header` and the arguments carry as a primitive, Base64-wrapped unless it is printable ASCII.
 */
function paramHeaders(tool: Tool, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) return headers;
  for (const [property, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
    const header = schema["x-mcp-header"];
    const value = (args as Record<string, unknown>)[property];
    if (!header || !["string", "number", "boolean"].includes(typeof value)) continue;
    const text = String(value);
    headers[`Mcp-Param-${header}`] = /^[\x20-\x7e]*$/.test(text)
      ? text
      : `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}?=`;
  }
  return headers;
}

async function callTool(era: "session" | "stateless", tool: Tool, args: unknown): Promise<[number, string]> {
  const { caller, sessionId } = await admin(era);
  const params = { name: tool.name, arguments: args };
  const response =
    era === "stateless"
      ? await modernPost(caller, "tools/call", params, paramHeaders(tool, args))
      : await mcpPost(
          caller,
          { jsonrpc: "2.0", id: 7, method: "tools/call", params },
          { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-11-25" },
        );
  if (response.status >= 500) return [response.status, await response.text()];
  const messages = await readRpc(response);
  return [response.status, JSON.stringify(messages)];
}

/** How each lane answered each call: "ok", "tool error" or "error <JSON-RPC code>". */
const answeredAs = { session: new Map<string, string>(), stateless: new Map<string, string>() };

function kindOf(reply: { result?: { isError?: boolean }; error?: { code?: number } }): string {
  if (reply.error) return `error ${reply.error.code}`;
  return reply.result?.isError ? "tool error" : "ok";
}

function problemsOf(label: string, status: number, answer: string): string[] {
  const problems: string[] = [];
  if (status >= 500) return [`${label}: HTTP ${status} ${answer.slice(0, 160)}`];
  let reply: { result?: { isError?: boolean }; error?: { code?: number; message?: unknown } };
  try {
    reply = (JSON.parse(answer) as (typeof reply)[])[0] ?? {};
  } catch {
    return [`${label}: HTTP ${status}, not JSON-RPC: ${answer.slice(0, 160)}`];
  }
  if (reply.error) {
    if (typeof reply.error.message !== "string" || reply.error.message === "")
      problems.push(`${label}: an error without a message`);
    if (reply.error.code === -32603) problems.push(`${label}: internal error ${String(reply.error.message)}`);
    // The call must reach the tool: a header refusal would mean this test sent the wrong Mcp-Param-* headers.
    if (reply.error.code === -32020) problems.push(`${label}: refused by the headers ${String(reply.error.message)}`);
  } else if (!reply.result) problems.push(`${label}: neither a result nor an error (HTTP ${status})`);
  if (/\n\s+at .+:\d+:\d+/.test(answer)) problems.push(`${label}: a stack trace`);
  return problems;
}

function kindFromAnswer(answer: string): string {
  try {
    return kindOf((JSON.parse(answer) as Parameters<typeof kindOf>[0][])[0] ?? {});
  } catch {
    return "not JSON-RPC";
  }
}

async function listedTools(): Promise<Tool[]> {
  const { caller } = await admin("stateless");
  const [reply] = await readRpc(await modernPost(caller, "tools/list", {}));
  return reply!.result.tools;
}

describe.each(["session", "stateless"] as const)("malformed tool arguments, %s lane", (era) => {
  it("answers every tool's malformed arguments with a result or a clear error", async () => {
    const tools = await listedTools();
    expect(tools.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const tool of tools) {
      for (const args of [undefined, null, [], "text"]) {
        const [status, answer] = await callTool(era, tool, args);
        const label = `${tool.name}(${JSON.stringify(args)})`;
        problems.push(...problemsOf(label, status, answer));
        answeredAs[era].set(label, kindFromAnswer(answer));
      }
      for (const property of Object.keys(tool.inputSchema.properties ?? {})) {
        for (const value of [...WRONG_VALUES, LONG, MARKUP]) {
          const [status, answer] = await callTool(era, tool, { [property]: value });
          const shown = typeof value === "string" ? value.slice(0, 20) : JSON.stringify(value);
          const label = `${tool.name}({${property}: ${shown}})`;
          problems.push(...problemsOf(label, status, answer));
          answeredAs[era].set(label, kindFromAnswer(answer));
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("malformed tool arguments, both lanes alike", () => {
  it("answers each malformed call the same way in a session and statelessly", () => {
    expect(answeredAs.session.size).toBeGreaterThan(100);
    expect(answeredAs.stateless.size).toBe(answeredAs.session.size);
    const differing = [...answeredAs.session].filter(([label, kind]) => answeredAs.stateless.get(label) !== kind);
    expect(differing.map(([label, kind]) => `${label}: ${kind} / ${answeredAs.stateless.get(label)}`)).toEqual([]);
  });
});
