/**
 * The capability context: the only surface tool, resource and prompt modules see. Nothing here refers to
 * McpAgent or an SDK's McpServer: the same modules are served by both protocol eras (session/server.ts on SDK 1.x
 * sessions, stateless/server.ts on SDK 2.x stateless requests), and the files that know a host are the few named in the
 * docs/architecture.md (test/node/layers.test.ts keeps the list exact), not the modules.
 */
import type { z } from "zod";
import type { AuditOutcome } from "../audit/record";
import { Failure, kindForOutcome } from "../core/failure";
import type { Principal } from "../core/principal";
import type { Env } from "../env";
import type { QuotaUsage } from "../ratelimit/hook";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Per-session state kept by the host (the session's Durable Object storage). */
export interface SessionState {
  get<T>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
}

/** What a handler gets besides its validated input. */
export interface CallContext {
  principal: Principal;
  correlationId: string;
  env: Env;
  session: SessionState;
  /** The transport's session id (Mcp-Session-Id), when the host keeps sessions; lets a module name this session elsewhere. */
  sessionId?: string;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** Sends notifications/progress when the client asked for it (a progressToken); otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** For a tool with `reportsQuotaOf`: the remaining quotas its own rate-limit decision reported (this call counted). */
  quotas?: readonly QuotaUsage[];
}

/**
 * A handled failure described by its audit outcome: the governed core's Failure (src/core/failure.ts), so the
 * caller gets `isError: true` (or the JSON-RPC error) with `message` (safe to show) and the audit record gets
 * `outcome`. Anything else a handler throws is mapped to a generic message with outcome `error`.
 */
export class ToolFailure extends Failure {
  override readonly name = "ToolFailure";
  constructor(outcome: Exclude<AuditOutcome, "ok">, message: string, meta: Record<string, unknown> = {}) {
    super(kindForOutcome(outcome), message, meta);
  }

  get meta(): Record<string, unknown> {
    return this.details;
  }
}

export interface ToolResult<Out> {
  structuredContent: Out;
  /** Human-readable text; defaults to the JSON of structuredContent. */
  text?: string;
  /** Extra `_meta` entries (e.g. `{ demoData: true }`). */
  meta?: Record<string, unknown>;
}

export interface ToolDefinition<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  /** ^[a-zA-Z0-9_-]{1,64}$, snake_case noun_verb. */
  name: string;
  title: string;
  /** What the model reads to decide when to call it. */
  description: string;
  inputSchema: In;
  outputSchema: Out;
  annotations: ToolAnnotations;
  /** Every scope the call needs; checked before anything else. */
  requiredScopes: readonly string[];
  /** Extra `_meta` of the tool's listing (an MCP App view: `ui.resourceUri`), in both protocol eras. */
  listingMeta?: Record<string, unknown>;
  /**
   * Optional, for a tool that shows quotas (whoami): the targets whose remaining quota its rate-limit decision
   * reports in `context.quotas` (src/mcp/deps.ts asks for them), so showing them costs no second limiter call.
   */
  reportsQuotaOf?(): readonly string[];
  handler(input: z.infer<In>, context: CallContext): Promise<ToolResult<z.infer<Out>>>;
}

export interface ResourceContents {
  text: string;
  mimeType: string;
  /** The content item's `_meta` (an MCP App's `ui` settings: its CSP, its border). */
  meta?: Record<string, unknown>;
}

export interface ResourceDefinition {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  requiredScopes: readonly string[];
  /** Extra `_meta` of the resource's listing (an MCP App's `ui` settings), in both protocol eras. */
  listingMeta?: Record<string, unknown>;
  read(context: CallContext): Promise<ResourceContents>;
  /** Optional: runs when a session subscribes to this resource (before the subscription is kept); throwing refuses it. */
  subscribe?(context: CallContext): Promise<void>;
  /** Optional: runs after a session unsubscribed from this resource. */
  unsubscribe?(context: CallContext): Promise<void>;
  /**
   * For a resource whose content depends on the session's user (such as their default project): whether a change
   * announced for `topic` changes what this session reads here. Without it, every announced change does.
   */
  changedBy?(topic: string, view: SessionView): Promise<boolean>;
}

/** What an announcement of a change can look at in a session: no caller is involved, the change came from elsewhere. */
export interface SessionView {
  session: SessionState;
  /** The organization and user the session belongs to. */
  organizationId: string;
  userId: string;
  env: Env;
}

export interface ResourceTemplateDefinition {
  name: string;
  /** RFC 6570 template, e.g. `spec://{project}/contract/{version}`. */
  uriTemplate: string;
  title: string;
  description: string;
  mimeType: string;
  requiredScopes: readonly string[];
  /**
   * Concrete resources the caller may read now, for resources/list (resource-list.ts), a page at a time: about
   * `limit` entries from `after` (null: the start; else the `nextAfter` of the page before), and the `nextAfter` of
   * the page after, null when there is no more. Optional.
   */
  list?(
    context: CallContext,
    page: { after: string | null; limit: number },
  ): Promise<{ items: Array<{ uri: string; name: string; title?: string }>; nextAfter: string | null }>;
  read(uri: string, variables: Record<string, string>, context: CallContext): Promise<ResourceContents>;
  /**
   * Optional: runs when a session subscribes to a URI of this template (before the subscription is kept), e.g. to
   * record the session where the change will happen. Throwing refuses the subscription with the error's message.
   * A template whose URIs can name nothing (an unknown project, a missing version) refuses those here: without
   * this hook, every URI the template matches is accepted once the scopes are held.
   */
  subscribe?(uri: string, variables: Record<string, string>, context: CallContext): Promise<void>;
  /** Optional: runs after a session unsubscribed from a URI of this template. */
  unsubscribe?(uri: string, variables: Record<string, string>, context: CallContext): Promise<void>;
  /**
   * Optional: runs when a subscriptions/listen stream asks to follow a URI of this template; throwing refuses the
   * stream. The same refusals as `subscribe` (an unknown project, one the caller may not see), without keeping
   * anything: a listen stream is its own bookkeeping.
   */
  follow?(uri: string, variables: Record<string, string>, context: CallContext): Promise<void>;
}

export interface PromptMessage {
  role: "user" | "assistant";
  text: string;
}

export interface PromptDefinition<Args extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Prompt arguments are strings on the wire. */
  argsSchema: Args;
  requiredScopes: readonly string[];
  build(args: z.infer<Args>, context: CallContext): Promise<PromptMessage[]>;
}

/** Registration surface handed to every `register<Group>Tools(ctx)`. */
export interface CapabilityContext {
  registerTool<In extends z.ZodObject, Out extends z.ZodObject>(tool: ToolDefinition<In, Out>): void;
  registerResource(resource: ResourceDefinition): void;
  registerResourceTemplate(template: ResourceTemplateDefinition): void;
  registerPrompt<Args extends z.ZodObject>(prompt: PromptDefinition<Args>): void;
  /**
   * The names of every tool of the catalog being built. Complete once every registrar has run, so call it from a
   * handler or a lazy field (reportsQuotaOf), not while registering.
   */
  toolNames(): readonly string[];
}

export type Registrar = (context: CapabilityContext) => void;

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
