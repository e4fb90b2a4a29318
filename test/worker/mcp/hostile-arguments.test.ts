/**
 * Every tool the catalog lists, called in both protocol eras with malformed arguments: each property of its input
 * schema given a value of the wrong type (number, null, object), an over-long string or markup, and the arguments
 * themselves missing, null, an array or a string; and resources/read and prompts/get with hostile URIs and
 * arguments. Every answer must be a JSON-RPC result or error with a message (a tool error or invalid params), never
 * an HTTP 5xx, an internal error or a stack trace, and both eras must answer each call alike.
 */
import { describe, expect, it } from "vitest";
import { getPolicy } from "../../../src/policy/load";
import { mcpPrincipal, type Caller } from "../harness";
import { initializeSession, mcpPost, modernPost, readRpc } from "../helpers";

const MARKUP = "<script>alert(1)</script>";
const WRONG_VALUES: unknown[] = [12345, null, { nested: { deeper: true } }];
const LONG = "x".repeat(100_000);
const HOSTILE_URIS = [
  "",
  "spec://projects/%ZZ/contracts/1",
  "spec://projects/orders/contracts/-1",
  "spec://projects/orders/contracts/99999999999999999999",
  "spec://projects/orders/verdicts/1e309",
  "spec://projects/<script>/verdicts/latest",
  `spec://projects/${"x".repeat(10_000)}/contracts/active`,
  "spec://projects/../../contracts/active",
  "file:///etc/passwd",
  "graphql://schema/../../secrets",
  "ui://arbiter/../verdict-view.html",
  "not a uri at all",
];

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

async function send(
  era: "session" | "stateless",
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<[number, string]> {
  const { caller, sessionId } = await admin(era);
  const response =
    era === "stateless"
      ? await modernPost(caller, method, params, headers)
      : await mcpPost(
          caller,
          { jsonrpc: "2.0", id: 7, method, params },
          { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-11-25" },
        );
  if (response.status >= 500) return [response.status, await response.text()];
  const messages = await readRpc(response);
  return [response.status, JSON.stringify(messages)];
}

/** How each lane answered each call: "ok", "tool error" or "error <JSON-RPC code> <data.code>". */
const answeredAs = { session: new Map<string, string>(), stateless: new Map<string, string>() };

function kindOf(reply: {
  result?: { isError?: boolean };
  error?: { code?: number; data?: { code?: string } };
}): string {
  if (reply.error) return `error ${reply.error.code} ${reply.error.data?.code ?? "(no code)"}`;
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
        const [status, answer] = await send(
          era,
          "tools/call",
          { name: tool.name, arguments: args },
          paramHeaders(tool, args),
        );
        const label = `${tool.name}(${JSON.stringify(args)})`;
        problems.push(...problemsOf(label, status, answer));
        answeredAs[era].set(label, kindFromAnswer(answer));
      }
      for (const property of Object.keys(tool.inputSchema.properties ?? {})) {
        for (const value of [...WRONG_VALUES, LONG, MARKUP]) {
          const args = { [property]: value };
          const [status, answer] = await send(
            era,
            "tools/call",
            { name: tool.name, arguments: args },
            paramHeaders(tool, args),
          );
          const shown = typeof value === "string" ? value.slice(0, 20) : JSON.stringify(value);
          const label = `${tool.name}({${property}: ${shown}})`;
          problems.push(...problemsOf(label, status, answer));
          answeredAs[era].set(label, kindFromAnswer(answer));
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("answers malformed resource URIs and prompt arguments with a result or a clear error", async () => {
    const problems: string[] = [];
    const record = (label: string, [status, answer]: [number, string]) => {
      problems.push(...problemsOf(label, status, answer));
      answeredAs[era].set(label, kindFromAnswer(answer));
    };
    for (const uri of HOSTILE_URIS)
      record(`resources/read ${uri.slice(0, 40)}`, await send(era, "resources/read", { uri }));
    for (const uri of [12, null, ["spec://active/contract"]])
      record(`resources/read ${JSON.stringify(uri)}`, await send(era, "resources/read", { uri }));
    for (const name of ["ask_orders", "spec_driven_task", "no_such_prompt"])
      for (const args of [
        undefined,
        null,
        { question: 12, project: ["a"] },
        { question: LONG, project: MARKUP },
        "text",
      ])
        record(
          `prompts/get ${name}(${JSON.stringify(args)?.slice(0, 30)})`,
          await send(era, "prompts/get", { name, arguments: args }),
        );
    expect(problems).toEqual([]);
  });
});

/**
 * Where the lanes may differ, and why:
 * - resource not found is -32002 in 2025-11-25 and -32602 in 2026-07-28 (that revision's error table; the SDK maps
 *   it), with the same data.code, message and data.uri: compared with the code read as the era's;
 * - the 2026-07-28 SDK resolves dot segments in a resource URI before it matches (`ui://arbiter/../verdict-view.html`
 *   reads the view, under its own URI and with the same scope check), where the session lane matches exactly.
 */
const SAME_IN_BOTH_ERAS = (kind: string) => kind.replace(/^error -32002 /, "error -32602 ");
const KNOWN_DIVERGENCES = new Map([["resources/read ui://arbiter/../verdict-view.html", "ok"]]);

describe("malformed tool arguments, both lanes alike", () => {
  it("answers each malformed call the same way in a session and statelessly", () => {
    expect(answeredAs.session.size).toBeGreaterThan(100);
    expect(answeredAs.stateless.size).toBe(answeredAs.session.size);
    const differing = [...answeredAs.session].filter(
      ([label, kind]) =>
        SAME_IN_BOTH_ERAS(kind) !== answeredAs.stateless.get(label) &&
        KNOWN_DIVERGENCES.get(label) !== answeredAs.stateless.get(label),
    );
    expect(differing.map(([label, kind]) => `${label}: ${kind} / ${answeredAs.stateless.get(label)}`)).toEqual([]);
  });
});
