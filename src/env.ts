/**
 * Bindings and vars of the Worker, as wrangler.toml declares them. Secrets are optional strings. Each Durable Object
 * binding is declared beside the RPC its object offers, typed by that RPC and never by the class (a class pulls in
 * everything it is built from, and every module reads Env), by adding to this interface: MCP_OBJECT and LISTEN_HUB
 * in src/mcp/session-rpc.ts, CONTRACT_STORE in src/contracts/store/rpc.ts, TOLERANCE_COUNTER in
 * src/mcp/compat/counter-rpc.ts, RATE_LIMITER in src/ratelimit/coordinator-rpc.ts, AUDIT_LOG in
 * src/audit/store-rpc.ts, DIRECTORY in src/directory/rpc.ts, DIRECTORY_VIEW in src/directory/view-rpc.ts, GRANT_SWEEPER in src/oauth/grant-sweeper-rpc.ts and
 * EXPORTER in src/organizations/exporter-rpc.ts.
 * So this file imports nothing of src/: every room can read it without an arrow back up.
 */
export interface Env {
  /** Documents, forms and large verdict bodies, content-addressed per organization (src/contracts/store/bucket.ts). */
  DOCUMENTS: R2Bucket;
  OAUTH_KV: KVNamespace;
  RATE_LIMIT_KV: KVNamespace;
  PUBLIC_URL: string;
  /** Secret: the operator's key for /operator/v1 (docs/operations.md). Unset: the operator API is off. */
  ARBITER_OPERATOR_KEY?: string;
  /** Secret: encrypts organizations' write-only secrets in the directory (src/directory/secrets.ts). */
  DIRECTORY_ENCRYPTION_KEY?: string;
  /** Secret, during a key rotation only: the key DIRECTORY_ENCRYPTION_KEY replaced. */
  DIRECTORY_ENCRYPTION_KEY_PREVIOUS?: string;
  ARBITER_DEV_SIGN_IN?: string;
  ALLOWED_HOSTNAMES?: string;
  /** Benchmark only (src/mcp/bench-bare.ts): "true" with a loopback PUBLIC_URL adds the ungoverned bench_bare tool. */
  ARBITER_BENCH_BARE?: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_ORG_CLAIM?: string;
  OIDC_ROLE_CLAIM?: string;
  OIDC_SCOPES?: string;
  /** Signs browser sessions and remembered consent. 32+ characters. Required unless dev sign-in is on. */
  SESSION_SECRET?: string;
  /**
   * GraphQL upstreams of the order tools, as named by policies/graphql/upstreams.json (that file may name
   * others; they are read by name). Empty or unset URL: the embedded demo upstream. Tokens are secrets.
   */
  GRAPHQL_UPSTREAM_URL?: string;
  GRAPHQL_UPSTREAM_TOKEN?: string;
  GRAPHQL_UPSTREAM_URL_ACME?: string;
  GRAPHQL_UPSTREAM_TOKEN_ACME?: string;
  GRAPHQL_UPSTREAM_URL_GLOBEX?: string;
  GRAPHQL_UPSTREAM_TOKEN_GLOBEX?: string;
  /** Seconds from a session's first waiting audit record to its outbox's drain, 0-60, default 5 (src/audit/drain-delay.ts). */
  AUDIT_DRAIN_DELAY_SECONDS?: string;
  /** Seconds an MCP session object stays in memory without a request (src/mcp/session/agent.ts; default 30). */
  MCP_SESSION_IDLE_SECONDS?: string;
  /** Seconds without a request after which an MCP session ends as DELETE ends it (src/mcp/session/agent.ts; 7 days). */
  MCP_SESSION_TTL_SECONDS?: string;
  /** Which audit records are also logged: "failures" (default) or "all" (src/audit/log-lines.ts). */
  AUDIT_LOG_LINES?: string;
  /** OpenTelemetry (src/telemetry/config.ts): OTLP/HTTP base URL; telemetry is off when unset or empty. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** Secret: headers sent with each export, `name=value` pairs separated by commas. */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_SERVICE_NAME?: string;
}

export function devSignInEnabled(env: Env): boolean {
  return env.ARBITER_DEV_SIGN_IN === "true";
}

/** Used only when development sign-in is on and no SESSION_SECRET is set (npm start, tests). */
const DEVELOPMENT_ONLY_SECRET = "arbiter-development-only-secret-do-not-deploy-0001";

export class SessionSecretMissing extends Error {
  override readonly name = "SessionSecretMissing";
}

/**
 * The deployment's signing secret (SESSION_SECRET): browser sessions, remembered consent, sign-in attempts, CSRF
 * tokens and MCP session ids are signed with keys derived from it. Throws SessionSecretMissing when a deployment
 * without development sign-in has none (or a short one).
 */
export function sessionSecret(env: Env): string {
  const secret = env.SESSION_SECRET;
  if (secret && secret.length >= 32) return secret;
  if (devSignInEnabled(env)) return DEVELOPMENT_ONLY_SECRET;
  throw new SessionSecretMissing(
    "SESSION_SECRET is not set (or shorter than 32 characters): run `wrangler secret put SESSION_SECRET`.",
  );
}
