/**
 * Resources, resource templates, prompts and subscriptions through the governed core, written once for both
 * protocol eras: each era's server file (session/server.ts for 2025-11-25 sessions, stateless/server.ts for 2026-07-28) resolves
 * the request, calls one of these, and turns a Failure into its SDK's JSON-RPC error with failureAsJsonRpcError.
 * A resource read, a subscription change and a prompt get each pass scope check, rate limit, input validation and
 * audit exactly like a tool call; the operations built here are also the ones the HTTP step-up answer audits
 * (front/step-up.ts), so a refusal before the session and one inside it leave the same record.
 */
import { z } from "zod";
import { Failure } from "../core/failure";
import { governed, type GovernanceDeps, type Governed, type GovernedOperation } from "../core/governed";
import type { CallContext, PromptDefinition, PromptMessage, ResourceContents } from "./context";
import { MAX_RESOURCE_URI_LENGTH, type ResourceLookup, type ResourceTarget } from "./resource-lookup";

export type ResourceAction =
  | "resources/read"
  | "resources/subscribe"
  | "resources/unsubscribe"
  | "subscriptions/listen";

/** The rate-limit bucket every subscription change shares (resources/subscribe, resources/unsubscribe, subscriptions/listen). */
export const SUBSCRIPTIONS_RATE_LIMIT_TARGET = "subscriptions";

/**
 * A resource or template as the core governs it: audited under its URI (template); a read counts against the quota
 * `resource:<name>`, a subscription change against the `subscriptions` one.
 */
export function resourceOperation(
  target: Pick<ResourceTarget, "name" | "label" | "requiredScopes">,
  action: ResourceAction = "resources/read",
): GovernedOperation {
  const rateLimit =
    action === "resources/read"
      ? { target: `resource:${target.name}`, unit: "reads" }
      : { target: SUBSCRIPTIONS_RATE_LIMIT_TARGET, unit: "subscription changes" };
  return {
    kind: "resource",
    target: target.label,
    label: target.label,
    requiredScopes: target.requiredScopes,
    rateLimit,
  };
}

/** A prompt as the core governs it: audited under its name, quota `prompt:<name>`. */
export function promptOperation(prompt: Pick<PromptDefinition, "name" | "requiredScopes">): GovernedOperation {
  return {
    kind: "prompt",
    target: prompt.name,
    label: `the prompt ${prompt.name}`,
    requiredScopes: prompt.requiredScopes,
    rateLimit: { target: `prompt:${prompt.name}`, unit: "requests" },
  };
}

/** What a resource URI names, or the Failure that says why it names nothing (-32002 or an over-long URI). */
export function resolvedTarget(found: ResourceLookup, uri: string): ResourceTarget | Failure {
  if ("found" in found) return found.found;
  if ("tooLong" in found) {
    return new Failure(
      "invalid_input",
      `The resource URI is ${found.tooLong} characters long; this server's resource URIs are at most ${MAX_RESOURCE_URI_LENGTH}. resources/list and resources/templates/list show them.`,
    );
  }
  return resourceNotFound(
    uri,
    `no resource of this server has the URI "${uri}" and none of its resource templates matches it. resources/list and resources/templates/list show what there is.`,
  );
}

/**
 * Resource not found (JSON-RPC -32002; the 2026-07-28 SDK sends it as -32602, as that revision asks); `detail`
 * says what is missing and where to look.
 */
export function resourceNotFound(uri: string, detail: string, code = "resource_not_found"): Failure {
  return new Failure("not_found", `Resource not found: ${detail}`, { uri }, code);
}

const settledAs = (action: ResourceAction) => () => ({ outcome: "ok" as const, reason: action });

/** A resources/read content item, with its `_meta` when the resource has one (an MCP App's `ui` settings). */
export function contentItem(uri: string, contents: ResourceContents) {
  return { uri, mimeType: contents.mimeType, text: contents.text, ...(contents.meta ? { _meta: contents.meta } : {}) };
}

/** resources/read of one URI through the core. */
export function readResource(
  target: ResourceTarget,
  uri: string,
  context: CallContext,
  deps: GovernanceDeps,
): Promise<Governed<ResourceContents>> {
  return governed(
    resourceOperation(target),
    {
      principal: context.principal,
      correlationId: context.correlationId,
      arguments: { method: "resources/read", uri },
      deps,
    },
    {
      handler: () =>
        target.kind === "resource"
          ? target.resource.read(context)
          : target.template.read(uri, target.variables, context),
      settle: settledAs("resources/read"),
    },
  );
}

/**
 * A subscription change through the core: `keep` does the era's own bookkeeping (the session's list, a listen
 * stream) around the module's hook, which may refuse the URI by throwing.
 */
export function changeSubscription(
  action: Exclude<ResourceAction, "resources/read">,
  target: ResourceTarget,
  uri: string,
  context: CallContext,
  deps: GovernanceDeps,
  keep: (runHook: () => Promise<void>) => Promise<void> = (runHook) => runHook(),
): Promise<Governed<void>> {
  const hookName = action === "resources/unsubscribe" ? "unsubscribe" : "subscribe";
  const runHook = async () => {
    if (target.kind === "resource") await target.resource[hookName]?.call(target.resource, context);
    else await target.template[hookName]?.call(target.template, uri, target.variables, context);
  };
  return governed(
    resourceOperation(target, action),
    { principal: context.principal, correlationId: context.correlationId, arguments: { method: action, uri }, deps },
    {
      handler: () => keep(runHook),
      settle: settledAs(action),
    },
  );
}

/**
 * The argument schema a prompt is registered with in either SDK: the same names, descriptions and required flags
 * (what prompts/list shows), but any string accepted, so the prompt's real constraints are checked by the core,
 * where a refusal is audited. The SDK still refuses a missing required argument or a non-string on its own.
 */
export function promptArgsForSdk(prompt: PromptDefinition): z.ZodObject {
  // The stateless lane builds a server per request: the schema is made once per prompt.
  const made = sdkArgs.get(prompt);
  if (made) return made;
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(prompt.argsSchema.shape as Record<string, z.ZodType>)) {
    const text = field.description === undefined ? z.string() : z.string().describe(field.description);
    shape[name] = field.safeParse(undefined).success ? text.optional() : text;
  }
  const schema = z.object(shape);
  sdkArgs.set(prompt, schema);
  return schema;
}

const sdkArgs = new WeakMap<PromptDefinition, z.ZodObject>();

/** prompts/get through the core: the arguments are validated against the prompt's schema by the core. */
export function getPrompt(
  prompt: PromptDefinition,
  args: unknown,
  context: CallContext,
  deps: GovernanceDeps,
): Promise<Governed<PromptMessage[]>> {
  return governed(
    promptOperation(prompt),
    { principal: context.principal, correlationId: context.correlationId, arguments: args, deps },
    {
      input: prompt.argsSchema,
      // biome-ignore lint/plugin: the arguments were parsed by this prompt's own schema just before
      handler: (parsed) => prompt.build(parsed as never, context),
    },
  );
}
