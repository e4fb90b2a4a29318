/**
 * Wires the catalog onto an SDK v2 McpServer (protocol 2026-07-28, stateless): the twin of ../server.ts for the
 * other era. One server per request, built for that request's verified principal; every tools/call goes
 * through runToolCall exactly as in the session lane, and resources and prompts keep their scope checks.
 * Nothing here outlives the request: subscriptions are served by subscriptions/listen (listen-hub.ts).
 */
import { McpServer, ProtocolError, ProtocolErrorCode, ResourceTemplate, type ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Env } from "../../env";
import { logError } from "../../web/log";
import { missingScopes, type Catalog } from "../catalog";
import { ToolFailure, type CallContext, type Principal, type SessionState, type ToolDefinition } from "../context";
import { runToolCall, type PipelineDeps } from "../pipeline";
import { SERVER_INFO, SERVER_INSTRUCTIONS } from "../server";
import { jsonOnlySchema } from "./json-schema";

export interface StatelessRuntime extends PipelineDeps {
  env: Env;
  /** The principal of this very request (the OAuth token checked by the front in http.ts). */
  principal: Principal;
}

/** What a 2026-07-28 server advertises: resource subscriptions are delivered on subscriptions/listen streams. */
export const STATELESS_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
} as const;

/** A request has no session: state written during it lives as long as the request (nothing reads it later). */
function requestScopedState(): SessionState {
  const values = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => values.get(key) as T | undefined,
    put: async (key: string, value: unknown) => {
      values.set(key, value);
    },
  };
}

function callContext(ctx: ServerContext, runtime: StatelessRuntime, session: SessionState): Omit<CallContext, "correlationId"> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  return {
    principal: runtime.principal,
    env: runtime.env,
    session,
    signal: ctx.mcpReq.signal,
    async progress(progress, total, message) {
      if (progressToken === undefined) return;
      await ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) },
      });
    },
  };
}

function requireScopes(principal: Principal, required: readonly string[], what: string): void {
  const missing = missingScopes(principal.scopes, required);
  if (missing.length > 0) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Insufficient scope: ${what} needs ${missing.join(", ")}. Reconnect and grant it on the consent page.`);
  }
}

/**
 * Capability modules report handled failures as ToolFailure or as SDK v1 McpError (the session lane's type);
 * both become a v2 ProtocolError with the same code and safe message. Anything else gets a generic message.
 */
function asProtocolError(error: unknown, what: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (error instanceof ToolFailure) return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  if (error instanceof Error && typeof (error as { code?: unknown }).code === "number") {
    return new ProtocolError((error as unknown as { code: number }).code, error.message.replace(/^MCP error -?\d+: /, ""));
  }
  const correlationId = crypto.randomUUID();
  logError("stateless MCP handler failed", { what, correlationId, error });
  return new ProtocolError(ProtocolErrorCode.InternalError, `${what} failed: internal error (correlation id ${correlationId}). Try again.`);
}

async function guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asProtocolError(error, what);
  }
}

const flatten = (variables: Record<string, string | string[]>) =>
  Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]));

function registerTool(server: McpServer, tool: ToolDefinition, runtime: StatelessRuntime): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      // The listing shows the tool's own schemas; validation stays in runToolCall (so invalid input is audited).
      inputSchema: jsonOnlySchema(z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>),
      outputSchema: jsonOnlySchema(z.toJSONSchema(tool.outputSchema, { io: "output" }) as Record<string, unknown>),
      annotations: { title: tool.title, ...tool.annotations },
      _meta: { requiredScopes: [...tool.requiredScopes] },
    },
    (async (args: unknown, ctx: ServerContext) => runToolCall(tool, args, callContext(ctx, runtime, requestScopedState()), runtime)) as never,
  );
}

export function createStatelessServer(catalog: Catalog, runtime: StatelessRuntime): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: SERVER_INSTRUCTIONS, capabilities: STATELESS_CAPABILITIES });
  const session = requestScopedState();

  for (const tool of catalog.tools.values()) registerTool(server, tool, runtime);

  for (const resource of catalog.resources.values()) {
    server.registerResource(resource.name, resource.uri, { title: resource.title, description: resource.description, mimeType: resource.mimeType }, (uri, ctx) =>
      guarded(resource.uri, async () => {
        const context = callContext(ctx, runtime, session);
        requireScopes(context.principal, resource.requiredScopes, resource.uri);
        const contents = await resource.read({ ...context, correlationId: crypto.randomUUID() });
        return { contents: [{ uri: uri.href, mimeType: contents.mimeType, text: contents.text }] };
      }),
    );
  }

  for (const template of catalog.resourceTemplates.values()) {
    const list = template.list;
    const sdkTemplate = new ResourceTemplate(template.uriTemplate, {
      list: list
        ? (ctx) =>
            guarded(template.uriTemplate, async () => {
              const context = callContext(ctx, runtime, session);
              if (missingScopes(context.principal.scopes, template.requiredScopes).length > 0) return { resources: [] };
              const items = await list({ ...context, correlationId: crypto.randomUUID() });
              return { resources: items.map((item) => ({ ...item, mimeType: template.mimeType })) };
            })
        : undefined,
    });
    server.registerResource(template.name, sdkTemplate, { title: template.title, description: template.description, mimeType: template.mimeType }, (uri, variables, ctx) =>
      guarded(template.uriTemplate, async () => {
        const context = callContext(ctx, runtime, session);
        requireScopes(context.principal, template.requiredScopes, template.uriTemplate);
        const contents = await template.read(uri.href, flatten(variables), { ...context, correlationId: crypto.randomUUID() });
        return { contents: [{ uri: uri.href, mimeType: contents.mimeType, text: contents.text }] };
      }),
    );
  }

  for (const prompt of catalog.prompts.values()) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: prompt.argsSchema as never },
      (async (args: unknown, ctx: ServerContext) =>
        guarded(`prompt ${prompt.name}`, async () => {
          const context = callContext(ctx, runtime, session);
          requireScopes(context.principal, prompt.requiredScopes, `prompt ${prompt.name}`);
          const parsed = prompt.argsSchema.safeParse(args ?? {});
          if (!parsed.success) {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for prompt ${prompt.name}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
          }
          const messages = await prompt.build(parsed.data, { ...context, correlationId: crypto.randomUUID() });
          return { description: prompt.description, messages: messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: m.text } })) };
        })) as never,
    );
  }

  return server;
}
