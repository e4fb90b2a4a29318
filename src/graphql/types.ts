/**
 * The few outside shapes the order-data layer needs, declared structurally so src/graphql depends on no
 * Worker-only module (the Node-side tests load it against real HTTP servers). The Worker's Env, Principal,
 * PolicyFiles and ToolAnnotations all satisfy these.
 */

/** policy path (relative to policies/) -> parsed JSON or .graphql text, as src/policy/files.ts bundles them. */
export type PolicyFileMap = Readonly<Record<string, unknown>>;

/** Who is calling: only the organization and the granted scopes matter here. */
export interface Caller {
  organizationId: string;
  scopes: readonly string[];
}

/** The Worker's env: vars, secrets and bindings, read by name from upstreams.json. */
export type WorkerEnv = object;

export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** How a request reaches an upstream: a service binding's fetch, the global fetch, or the embedded demo. */
export type Fetcher = (request: Request) => Promise<Response>;

/** Handled failures; the tool layer turns them into ToolFailure with the same outcome and message. */
export type GatewayOutcome = "timeout" | "upstream-error" | "error";
