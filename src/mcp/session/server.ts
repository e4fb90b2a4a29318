/**
 * Wires the catalog onto an SDK v1 McpServer (the 2025-11-25 session lane). This is the one file that knows that
 * SDK's server API: tools/list and tools/call are answered here (every call through runToolCall), so are the
 * resource methods (one lookup decides what a URI names, for read and subscribe alike) and prompts; reads,
 * subscription changes and prompt gets go through the governed core (governed-capabilities.ts) like tool calls,
 * and their Failures become JSON-RPC errors here. Subscriptions are kept in the session, and initialize
 * advertises only what this file makes true.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { protocolError } from "./protocol-error";
import { CORRELATION_HEADER, forwardedCorrelationId } from "../../core/correlation";
import { Failure } from "../../core/failure";
import type { Governed } from "../../core/governed";
import {
  changeSubscription,
  contentItem,
  getPrompt,
  promptArgsForSdk,
  readResource,
  resolvedTarget,
} from "../governed-capabilities";
import type { Env } from "../../env";
import {
  BENCH_BARE_TOOL,
  BENCH_GOVERNED_TOOL,
  benchBareEnabled,
  benchBareResult,
  benchGovernedTool,
} from "../bench-bare";
import type { Catalog } from "../catalog";
import {
  answered as answeredAs,
  CATALOG_CAPABILITIES,
  callContextOf,
  SERVER_INFO,
  SERVER_INSTRUCTIONS,
  toolListing,
  listableScopes,
  toolsListedTo,
} from "../catalog-view";
import type { CallContext, SessionView, SessionState } from "../context";
import type { Principal } from "../../core/principal";
import type { ResourceChange } from "../resource-change";
import { resourceLookup, type ResourceTarget } from "../resource-lookup";
import { resourcesPage } from "../resource-list";
import {
  addSubscribedUri,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  removeSubscribedUri,
  subscribedUris,
} from "./subscription-list";
import { runToolCall, type PipelineDeps } from "../pipeline";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ServerRuntime extends PipelineDeps {
  env: Env;
  session: SessionState;
  /** The principal of the request being handled (from the OAuth token of that very request). */
  principalOf(extra: Extra): Principal;
}

/** The call's context from SDK 1.x's request metadata (catalog-view.ts builds it alike for both lanes). */
function callContext(extra: Extra, runtime: ServerRuntime): CallContext {
  return callContextOf({
    principal: runtime.principalOf(extra),
    correlationId: forwardedCorrelationId(extra.requestInfo?.headers[CORRELATION_HEADER.toLowerCase()]),
    env: runtime.env,
    session: runtime.session,
    ...(extra.sessionId === undefined ? {} : { sessionId: extra.sessionId }),
    signal: extra.signal,
    progressToken: extra._meta?.progressToken,
    notify: (notification) => extra.sendNotification(notification),
  });
}

/** The value of a governed operation, or its Failure thrown as the JSON-RPC error SDK 1.x sends. */
function answered<T>(outcome: Governed<T>, correlationId: string): T {
  return answeredAs(outcome, correlationId, (error) => protocolError(error.code, error.message, error.data));
}

/**
 * The JSON Schema validator the SDK's server keeps (it validates only elicitation answers, which Arbiter never asks
 * for). Without one the SDK builds an ajv instance per session, and ajv cannot compile schemas in Workers anyway; this
 * one holds nothing but its options, so every session shares it, and ajv is left out of the bundle (wrangler.toml
 * [alias], src/lib/ajv-refusal.ts).
 */
const schemaValidator = new CfWorkerJsonSchemaValidator({ draft: "2020-12", shortcircuit: false });

export function createArbiterServer(catalog: Catalog, runtime: ServerRuntime): McpServer {
  // Declared because the SDK sets a handler only for a declared capability; McpServer then installs handlers of
  // its own for them, which the ones below replace. What initialize advertises is set at the end.
  const server = new McpServer(SERVER_INFO, {
    instructions: SERVER_INSTRUCTIONS,
    capabilities: { tools: {}, resources: { subscribe: true }, logging: {} },
    jsonSchemaValidator: schemaValidator,
  });
  const low = server.server;

  low.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const principal = runtime.principalOf(extra);
    const grantable = await listableScopes(runtime.env, principal);
    return { tools: toolsListedTo(catalog, principal, grantable).map(toolListing) };
  });
  low.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // bench:mcp's ungoverned baseline, only with ARBITER_BENCH_BARE on a loopback PUBLIC_URL (bench-bare.ts).
    if (request.params.name === BENCH_BARE_TOOL && benchBareEnabled(runtime.env)) return benchBareResult();
    if (request.params.name === BENCH_GOVERNED_TOOL && benchBareEnabled(runtime.env))
      return runToolCall(benchGovernedTool, request.params.arguments, callContext(extra, runtime), runtime);
    const tool = catalog.tools.get(request.params.name);
    if (!tool) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}". Call tools/list to see the tools this server offers.`,
      );
    }
    return runToolCall(tool, request.params.arguments, callContext(extra, runtime), runtime);
  });

  const lookup = resourceLookup(catalog);
  /** The catalog entry `uri` names, or the JSON-RPC error that says why there is none. */
  const resolve = (uri: string, correlationId: string): ResourceTarget => {
    const target = resolvedTarget(lookup(uri), uri);
    if (target instanceof Failure) return answered({ ok: false, failure: target }, correlationId);
    return target;
  };

  // The resource methods are answered here rather than by McpServer.registerResource: its read answers an
  // unknown URI with -32602 where the specification asks for -32002, and it does not bound the URI.
  low.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const context = callContext(extra, runtime);
    return answered(await resourcesPage(catalog, context, request.params?.cursor), context.correlationId);
  });
  low.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [...catalog.resourceTemplates.values()].map((template) => ({
      name: template.name,
      uriTemplate: template.uriTemplate,
      title: template.title,
      description: template.description,
      mimeType: template.mimeType,
    })),
  }));
  low.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const context = callContext(extra, runtime);
    const contents = answered(
      await readResource(resolve(uri, context.correlationId), uri, context, runtime),
      context.correlationId,
    );
    return { contents: [contentItem(uri, contents)] };
  });

  for (const prompt of catalog.prompts.values()) {
    server.registerPrompt(
      prompt.name,
      // biome-ignore lint/plugin: SDK adapter: the SDK 1.x registration types its arguments by the schema it is given; the governed core checks them
      { title: prompt.title, description: prompt.description, argsSchema: promptArgsForSdk(prompt).shape as never },
      // biome-ignore lint/plugin: SDK adapter: the SDK 1.x registration types its arguments by the schema it is given; the governed core checks them
      (async (args: unknown, extra: Extra) => {
        const context = callContext(extra, runtime);
        const messages = answered(await getPrompt(prompt, args, context, runtime), context.correlationId);
        return {
          description: prompt.description,
          messages: messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: m.text } })),
        };
      }) as never,
    );
  }

  // Only what exists and the caller may read can be subscribed to, and a session holds a bounded number. The
  // place is taken before the module's hook records the session elsewhere, so the bound holds under concurrency.
  low.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const context = callContext(extra, runtime);
    const target = resolve(uri, context.correlationId);
    const outcome = await changeSubscription("resources/subscribe", target, uri, context, runtime, async (runHook) => {
      const added = await addSubscribedUri(runtime.session, uri);
      if (added === "full") {
        throw new Failure(
          "forbidden",
          `This session already holds ${MAX_SUBSCRIPTIONS_PER_SESSION} resource subscriptions, the most one session may hold: unsubscribe (resources/unsubscribe) from one it no longer needs, or open another session.`,
          { limit: MAX_SUBSCRIPTIONS_PER_SESSION },
          "too_many_subscriptions",
        );
      }
      try {
        await runHook();
      } catch (error) {
        if (added === "added") await removeSubscribedUri(runtime.session, uri);
        throw error;
      }
    });
    answered(outcome, context.correlationId);
    return {};
  });
  low.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    await removeSubscribedUri(runtime.session, uri);
    // Unsubscribing from something that names nothing is a no-op, as it cannot be held.
    const found = lookup(uri);
    if ("found" in found) {
      const context = callContext(extra, runtime);
      answered(
        await changeSubscription("resources/unsubscribe", found.found, uri, context, runtime),
        context.correlationId,
      );
    }
    return {};
  });

  // McpServer switches listChanged on for tools, resources and prompts as it installs their handlers; what the
  // catalog really offers (catalog-view.ts) is said instead.
  low.registerCapabilities(CATALOG_CAPABILITIES);

  return server;
}

/**
 * Announces `change` to this session: sends notifications/resources/updated for each changed URI the session
 * subscribed to (and that, for a session-dependent resource, this change concerns). Returns whether the session
 * still follows the change's topic through any watched URI, so the caller can forget sessions that no longer do.
 */
export async function announceChange(
  server: McpServer,
  catalog: Catalog,
  view: SessionView,
  change: ResourceChange,
): Promise<boolean> {
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
