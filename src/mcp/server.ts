/**
 * Wires the catalog onto an SDK v1 McpServer. This is the one file that knows the SDK's server API:
 * tools/list and tools/call are answered here (every call through runToolCall), resources and prompts are
 * registered with scope checks, and resource subscriptions are kept in the session.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Env } from "../env";
import { missingScopes, type Catalog } from "./catalog";
import { ToolFailure, type CallContext, type Principal, type ResourceChange, type SessionView, type SessionState } from "./context";
import { addSubscribedUri, removeSubscribedUri, subscribedUris } from "./subscription-list";
import { runToolCall, type PipelineDeps } from "./pipeline";
import { logError } from "../web/log";
import { getPolicy } from "../policy/load";
import { toolsListableFor } from "./tool-visibility";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const SERVER_INFO = {
  name: "arbiter",
  title: "Arbiter",
  version: "0.1.0",
} as const;

export const SERVER_INSTRUCTIONS = [
  "Arbiter gives governed access to an organization's order data and API contracts.",
  "Order data: use the order tools (orders_search, orders_get_by_id); they run only allowlisted GraphQL operations, mask personal data unless you hold orders.pii, and never accept free-form GraphQL.",
  "Spec arbitration: read the active contract before writing code, call check_api_conformance before calling a task done, and use validate_response_payload to check real responses against the contract's schemas.",
  "Call whoami to see your organization, granted scopes and remaining quota. A failed conformance check is a normal result (approved: false); isError means the check could not run and says what to do next.",
].join(" ");

export interface ServerRuntime extends PipelineDeps {
  env: Env;
  session: SessionState;
  /** The principal of the request being handled (from the OAuth token of that very request). */
  principalOf(extra: Extra): Principal;
}

function callContext(extra: Extra, runtime: ServerRuntime): Omit<CallContext, "correlationId"> {
  const progressToken = extra._meta?.progressToken;
  return {
    principal: runtime.principalOf(extra),
    env: runtime.env,
    session: runtime.session,
    ...(extra.sessionId === undefined ? {} : { sessionId: extra.sessionId }),
    signal: extra.signal,
    async progress(progress, total, message) {
      if (progressToken === undefined) return;
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) },
      });
    },
  };
}

function requireScopes(principal: Principal, required: readonly string[], what: string): void {
  const missing = missingScopes(principal.scopes, required);
  if (missing.length > 0) {
    throw new McpError(ErrorCode.InvalidRequest, `Insufficient scope: ${what} needs ${missing.join(", ")}. Reconnect and grant it on the consent page.`);
  }
}

export function toolListing(catalog: Catalog) {
  return [...catalog.tools.values()].map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema, { io: "input" }) as { type: "object"; [key: string]: unknown },
    outputSchema: z.toJSONSchema(tool.outputSchema, { io: "output" }) as { type: "object"; [key: string]: unknown },
    annotations: { title: tool.title, ...tool.annotations },
    _meta: { requiredScopes: [...tool.requiredScopes] },
  }));
}

export function createArbiterServer(catalog: Catalog, runtime: ServerRuntime): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: SERVER_INSTRUCTIONS,
    capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false }, logging: {} },
  });
  const low = server.server;
  const listing = toolListing(catalog);

  low.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const listable = new Set(toolsListableFor(catalog.tools.values(), runtime.principalOf(extra).role, getPolicy()).map((tool) => tool.name));
    return { tools: listing.filter((tool) => listable.has(tool.name)) };
  });
  low.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = catalog.tools.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}". Call tools/list to see the tools this server offers.`);
    }
    return runToolCall(tool, request.params.arguments, callContext(extra, runtime), runtime);
  });

  for (const resource of catalog.resources.values()) {
    server.registerResource(resource.name, resource.uri, { title: resource.title, description: resource.description, mimeType: resource.mimeType }, async (uri, extra) => {
      const context = callContext(extra, runtime);
      requireScopes(context.principal, resource.requiredScopes, resource.uri);
      const contents = await resource.read({ ...context, correlationId: crypto.randomUUID() });
      return { contents: [{ uri: uri.href, mimeType: contents.mimeType, text: contents.text }] };
    });
  }

  const flatten = (variables: Record<string, string | string[]>) =>
    Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]));

  for (const template of catalog.resourceTemplates.values()) {
    const list = template.list;
    const sdkTemplate = new ResourceTemplate(template.uriTemplate, {
      list: list
        ? async (extra) => {
            const context = callContext(extra, runtime);
            if (missingScopes(context.principal.scopes, template.requiredScopes).length > 0) return { resources: [] };
            const items = await list({ ...context, correlationId: crypto.randomUUID() });
            return { resources: items.map((item) => ({ ...item, mimeType: template.mimeType })) };
          }
        : undefined,
    });
    server.registerResource(template.name, sdkTemplate, { title: template.title, description: template.description, mimeType: template.mimeType }, async (uri, variables, extra) => {
      const context = callContext(extra, runtime);
      requireScopes(context.principal, template.requiredScopes, template.uriTemplate);
      const contents = await template.read(uri.href, flatten(variables), { ...context, correlationId: crypto.randomUUID() });
      return { contents: [{ uri: uri.href, mimeType: contents.mimeType, text: contents.text }] };
    });
  }

  for (const prompt of catalog.prompts.values()) {
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema: prompt.argsSchema.shape as never }, (async (args: unknown, extra: Extra) => {
      const context = callContext(extra, runtime);
      requireScopes(context.principal, prompt.requiredScopes, `prompt ${prompt.name}`);
      const parsed = prompt.argsSchema.safeParse(args ?? {});
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${prompt.name}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const messages = await prompt.build(parsed.data, { ...context, correlationId: crypto.randomUUID() });
      return { description: prompt.description, messages: messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: m.text } })) };
    }) as never);
  }

  // Resources and templates that want to know about subscriptions (e.g. to record the session where the change happens).
  const templateHooks = [...catalog.resourceTemplates.values()]
    .filter((template) => template.subscribe || template.unsubscribe)
    .map((template) => ({ template, matcher: new UriTemplate(template.uriTemplate) }));
  const runSubscriptionHook = async (kind: "subscribe" | "unsubscribe", uri: string, extra: Extra) => {
    const resource = catalog.resources.get(uri);
    if (resource) {
      const hook = resource[kind];
      if (!hook) return;
      const context = callContext(extra, runtime);
      requireScopes(context.principal, resource.requiredScopes, resource.uri);
      const correlationId = crypto.randomUUID();
      await runHook(() => hook.call(resource, { ...context, correlationId }), uri, resource.name, correlationId);
      return;
    }
    for (const { template, matcher } of templateHooks) {
      const variables = matcher.match(uri);
      if (!variables) continue;
      const hook = template[kind];
      if (!hook) return;
      const context = callContext(extra, runtime);
      requireScopes(context.principal, template.requiredScopes, template.uriTemplate);
      const correlationId = crypto.randomUUID();
      await runHook(() => hook.call(template, uri, flatten(variables), { ...context, correlationId }), uri, template.name, correlationId);
      return;
    }
  };

  low.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await runSubscriptionHook("subscribe", request.params.uri, extra);
    await addSubscribedUri(runtime.session, request.params.uri);
    return {};
  });
  low.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    await removeSubscribedUri(runtime.session, request.params.uri);
    await runSubscriptionHook("unsubscribe", request.params.uri, extra);
    return {};
  });

  return server;
}

/** A refused subscription answers with the hook's safe message; anything unexpected with a generic one. */
async function runHook(run: () => Promise<void>, uri: string, owner: string, correlationId: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof ToolFailure) throw new McpError(ErrorCode.InvalidParams, error.message);
    logError("subscription hook failed", { resource: owner, correlationId, error });
    throw new McpError(ErrorCode.InternalError, `Could not change the subscription to ${uri} (correlation id ${correlationId}). Try again.`);
  }
}

/**
 * Announces `change` to this session: sends notifications/resources/updated for each changed URI the session
 * subscribed to (and that, for a session-dependent resource, this change concerns). Returns whether the session
 * still follows the change's topic through any watched URI, so the caller can forget sessions that no longer do.
 */
export async function announceChange(server: McpServer, catalog: Catalog, view: SessionView, change: ResourceChange): Promise<boolean> {
  const held = new Set(await subscribedUris(view.session));
  let follows = false;
  for (const uri of change.watched) {
    if (!held.has(uri)) continue;
    const resource = catalog.resources.get(uri);
    if (resource?.changedBy && !(await resource.changedBy(change.topic, view))) continue;
    follows = true;
    if (change.changed.includes(uri)) await server.server.sendResourceUpdated({ uri });
  }
  return follows;
}
