/**
 * Wires the catalog onto an SDK v2 McpServer (protocol 2026-07-28, stateless): the counterpart of
 * ../session/server.ts for the other era. One server per request, built for that request's verified principal;
 * every tools/call goes through runToolCall, and every resource read and prompt get through the governed core
 * (governed-capabilities.ts), exactly as in the session lane; their Failures become SDK 2.x ProtocolErrors here.
 * A resource URI is resolved by the lookup the session lane uses (resource-lookup.ts), not by the SDK's match.
 * Nothing here outlives the request: subscriptions are served by subscriptions/listen (listen-hub.ts).
 */
import { McpServer, ProtocolError, ResourceTemplate, type ServerContext } from "@modelcontextprotocol/server";
import type { Env } from "../../env";
import type { Catalog } from "../catalog";
import {
  answered as answeredAs,
  CATALOG_CAPABILITIES,
  callContextOf,
  SERVER_INFO,
  SERVER_INSTRUCTIONS,
  toolListing,
  toolListingFields,
  toolsListedTo,
} from "../catalog-view";
import { Failure } from "../../core/failure";
import type { Governed } from "../../core/governed";
import type { CallContext, SessionState, ToolDefinition } from "../context";
import type { Principal } from "../../core/principal";
import { contentItem, getPrompt, promptArgsForSdk, readResource, resolvedTarget } from "../governed-capabilities";
import { runToolCall, type PipelineDeps } from "../pipeline";
import { resourcesPage } from "../resource-list";
import { resourceLookup, type ResourceTarget } from "../resource-lookup";
import { jsonOnlySchema } from "./json-schema";

export interface StatelessRuntime extends PipelineDeps {
  env: Env;
  /** The principal of this very request (the OAuth token checked by the front in http.ts). */
  principal: Principal;
  /** This request's correlation id, made by the front (also in its X-Correlation-Id header). */
  correlationId: string;
  /** What the principal's role may grant in its organization (listableScopes), for the tools it lists. */
  grantable?: readonly string[];
}

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

/** The call's context from SDK 2.x's request metadata (catalog-view.ts builds it alike for both lanes). */
function callContext(ctx: ServerContext, runtime: StatelessRuntime, session: SessionState): CallContext {
  return callContextOf({
    principal: runtime.principal,
    correlationId: runtime.correlationId,
    env: runtime.env,
    session,
    signal: ctx.mcpReq.signal,
    progressToken: ctx.mcpReq._meta?.progressToken,
    notify: (notification) => ctx.mcpReq.notify(notification),
  });
}

/** The value of a governed operation, or its Failure thrown as the JSON-RPC error SDK 2.x sends. */
function answered<T>(outcome: Governed<T>, correlationId: string): T {
  return answeredAs(outcome, correlationId, (error) => new ProtocolError(error.code, error.message, error.data));
}

/**
 * What a URI the SDK matched names, resolved as the session lane resolves it (resource-lookup.ts): the same
 * variables, and the same refusal of a URI over MAX_RESOURCE_URI_LENGTH, which the SDK's matching does not bound.
 */
function resolved(catalog: Catalog, uri: string, correlationId: string): ResourceTarget {
  const target = resolvedTarget(resourceLookup(catalog)(uri), uri);
  return target instanceof Failure ? answered({ ok: false, failure: target }, correlationId) : target;
}

/**
 * The tool's listing (catalog-view.ts) as SDK 2.x takes it, its schemas converted only when first listed: a
 * stateless request builds a server for itself, and a call needs none of the listing's schemas.
 */
const registrations = new WeakMap<ToolDefinition, Record<string, unknown>>();
function listingOf(tool: ToolDefinition): Record<string, unknown> {
  let registration = registrations.get(tool);
  if (!registration) {
    registration = {
      ...toolListingFields(tool),
      inputSchema: jsonOnlySchema(() => toolListing(tool).inputSchema),
      outputSchema: jsonOnlySchema(() => toolListing(tool).outputSchema),
    };
    registrations.set(tool, registration);
  }
  return registration;
}

/** Lists `tool` and answers its calls through runToolCall (the governed core). */
export function registerGovernedTool(server: McpServer, tool: ToolDefinition, runtime: StatelessRuntime): void {
  server.registerTool(
    tool.name,
    // biome-ignore lint/plugin: SDK adapter: the SDK 2.x registration types its arguments by the schema it is given; the governed core checks them
    listingOf(tool) as never,
    // biome-ignore lint/plugin: SDK adapter: the SDK 2.x registration types its arguments by the schema it is given; the governed core checks them
    (async (args: unknown, ctx: ServerContext) =>
      runToolCall(tool, args, callContext(ctx, runtime, requestScopedState()), runtime)) as never,
  );
}

/**
 * The server of one stateless request. `onlyTool`: the request is a single tools/call of this catalog tool, which is
 * all it needs; registering the whole catalog (every tool, resource, template and prompt) for it was the largest
 * part of building a server per request. Anything else (a listing, a batch, a call of an unknown tool, whose answer
 * names what is served) gets the whole catalog.
 */
export function createStatelessServer(catalog: Catalog, runtime: StatelessRuntime, onlyTool?: string): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: SERVER_INSTRUCTIONS,
    capabilities: CATALOG_CAPABILITIES,
  });
  if (onlyTool !== undefined) {
    const tool = catalog.tools.get(onlyTool);
    if (tool) registerGovernedTool(server, tool, runtime);
    return server;
  }
  const session = requestScopedState();

  for (const tool of toolsListedTo(catalog, runtime.principal, runtime.grantable))
    registerGovernedTool(server, tool, runtime);

  for (const resource of catalog.resources.values()) {
    server.registerResource(
      resource.name,
      resource.uri,
      {
        title: resource.title,
        description: resource.description,
        mimeType: resource.mimeType,
        ...(resource.listingMeta ? { _meta: resource.listingMeta } : {}),
      },
      async (uri, ctx) => {
        const context = callContext(ctx, runtime, session);
        const target = resolved(catalog, uri.href, context.correlationId);
        const contents = answered(await readResource(target, uri.href, context, runtime), context.correlationId);
        return { contents: [contentItem(uri.href, contents)] };
      },
    );
  }

  for (const template of catalog.resourceTemplates.values()) {
    // resources/list is answered below for the whole catalog (resource-list.ts), so the SDK lists nothing itself.
    const sdkTemplate = new ResourceTemplate(template.uriTemplate, { list: undefined });
    server.registerResource(
      template.name,
      sdkTemplate,
      { title: template.title, description: template.description, mimeType: template.mimeType },
      async (uri, _variables, ctx) => {
        const context = callContext(ctx, runtime, session);
        const target = resolved(catalog, uri.href, context.correlationId);
        const contents = answered(await readResource(target, uri.href, context, runtime), context.correlationId);
        return { contents: [{ uri: uri.href, mimeType: contents.mimeType, text: contents.text }] };
      },
    );
  }

  for (const prompt of catalog.prompts.values()) {
    server.registerPrompt(
      prompt.name,
      // biome-ignore lint/plugin: SDK adapter: the SDK 2.x registration types its arguments by the schema it is given; the governed core checks them
      { title: prompt.title, description: prompt.description, argsSchema: promptArgsForSdk(prompt) as never },
      // biome-ignore lint/plugin: SDK adapter: the SDK 2.x registration types its arguments by the schema it is given; the governed core checks them
      (async (args: unknown, ctx: ServerContext) => {
        const context = callContext(ctx, runtime, session);
        const messages = answered(await getPrompt(prompt, args, context, runtime), context.correlationId);
        return {
          description: prompt.description,
          messages: messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: m.text } })),
        };
      }) as never,
    );
  }

  // Replaces the SDK's own resources/list (set when the server was made): the same pages and cursors as the session lane.
  server.server.setRequestHandler("resources/list", async (request, ctx) => {
    const context = callContext(ctx, runtime, session);
    return answered(await resourcesPage(catalog, context, request.params?.cursor), context.correlationId);
  });

  return server;
}
