import type {
  CapabilityContext,
  PromptDefinition,
  Registrar,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from "./context";
import { TOOL_NAME_PATTERN } from "./context";

/** Everything the server offers, collected once per isolate from the registrars. */
export interface Catalog {
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly resources: ReadonlyMap<string, ResourceDefinition>;
  readonly resourceTemplates: ReadonlyMap<string, ResourceTemplateDefinition>;
  readonly prompts: ReadonlyMap<string, PromptDefinition>;
}

export class CatalogError extends Error {
  override readonly name = "CatalogError";
}

/**
 * Runs the registrars against a recording context. Definitions are checked here so a bad tool fails at
 * start-up with its name, not at call time: name pattern, uniqueness, title, scopes from the catalogue.
 */
export function buildCatalog(registrars: readonly Registrar[], knownScopes: readonly string[]): Catalog {
  const tools = new Map<string, ToolDefinition>();
  const resources = new Map<string, ResourceDefinition>();
  const resourceTemplates = new Map<string, ResourceTemplateDefinition>();
  const prompts = new Map<string, PromptDefinition>();
  const scopeSet = new Set(knownScopes);

  const checkScopes = (kind: string, name: string, scopes: readonly string[]) => {
    for (const scope of scopes) {
      if (!scopeSet.has(scope))
        throw new CatalogError(`${kind} "${name}" requires unknown scope "${scope}" (not in policies/scopes.json)`);
    }
  };

  const context: CapabilityContext = {
    registerTool(tool) {
      if (!TOOL_NAME_PATTERN.test(tool.name))
        throw new CatalogError(`tool name "${tool.name}" must match ${TOOL_NAME_PATTERN}`);
      if (tools.has(tool.name)) throw new CatalogError(`tool "${tool.name}" is registered twice`);
      if (!tool.title.trim() || !tool.description.trim())
        throw new CatalogError(`tool "${tool.name}" needs a title and a description`);
      checkScopes("tool", tool.name, tool.requiredScopes);
      // biome-ignore lint/plugin: a tool typed by its own input schema is stored as the catalog's common tool type
      tools.set(tool.name, tool as unknown as ToolDefinition);
    },
    registerResource(resource) {
      if (resources.has(resource.uri)) throw new CatalogError(`resource "${resource.uri}" is registered twice`);
      checkScopes("resource", resource.uri, resource.requiredScopes);
      resources.set(resource.uri, resource);
    },
    registerResourceTemplate(template) {
      if (resourceTemplates.has(template.name))
        throw new CatalogError(`resource template "${template.name}" is registered twice`);
      checkScopes("resource template", template.name, template.requiredScopes);
      resourceTemplates.set(template.name, template);
    },
    registerPrompt(prompt) {
      if (prompts.has(prompt.name)) throw new CatalogError(`prompt "${prompt.name}" is registered twice`);
      checkScopes("prompt", prompt.name, prompt.requiredScopes);
      // biome-ignore lint/plugin: a prompt typed by its own arguments is stored as the catalog's common prompt type
      prompts.set(prompt.name, prompt as unknown as PromptDefinition);
    },
    toolNames: () => [...tools.keys()],
  };

  for (const register of registrars) register(context);
  return { tools, resources, resourceTemplates, prompts };
}
