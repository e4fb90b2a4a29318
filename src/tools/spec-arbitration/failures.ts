/**
 * Where the spec services' transport-free failure (SpecFailure) becomes an MCP tool failure: `isError: true` with
 * the service's message, the audit outcome, and `_meta.cannotVerify` naming the case. Every spec tool, resource,
 * template and prompt is registered through `mappingSpecFailures`, so no handler can forget the mapping.
 */
import { SpecFailure } from "../../contracts/services/failure";
import { ToolFailure, type CapabilityContext } from "../../mcp/context";

/** A SpecFailure as the ToolFailure it stands for; anything else unchanged. */
export function asToolFailure(error: unknown): unknown {
  return error instanceof SpecFailure ? new ToolFailure(error.outcome, error.message, { cannotVerify: error.code, ...error.details }) : error;
}

async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asToolFailure(error);
  }
}

/** `ctx` with every callback of what is registered through it mapping SpecFailures to ToolFailures. */
export function mappingSpecFailures(ctx: CapabilityContext): CapabilityContext {
  return {
    registerTool(tool) {
      ctx.registerTool({ ...tool, handler: (input, context) => mapped(() => tool.handler(input, context)) });
    },
    registerResource(resource) {
      const { subscribe, unsubscribe } = resource;
      ctx.registerResource({
        ...resource,
        read: (context) => mapped(() => resource.read(context)),
        ...(subscribe ? { subscribe: (context) => mapped(() => subscribe(context)) } : {}),
        ...(unsubscribe ? { unsubscribe: (context) => mapped(() => unsubscribe(context)) } : {}),
      });
    },
    registerResourceTemplate(template) {
      const { list, subscribe, unsubscribe } = template;
      ctx.registerResourceTemplate({
        ...template,
        read: (uri, variables, context) => mapped(() => template.read(uri, variables, context)),
        ...(list ? { list: (context) => mapped(() => list(context)) } : {}),
        ...(subscribe ? { subscribe: (uri, variables, context) => mapped(() => subscribe(uri, variables, context)) } : {}),
        ...(unsubscribe ? { unsubscribe: (uri, variables, context) => mapped(() => unsubscribe(uri, variables, context)) } : {}),
      });
    },
    registerPrompt(prompt) {
      ctx.registerPrompt({ ...prompt, build: (args, context) => mapped(() => prompt.build(args, context)) });
    },
  };
}
