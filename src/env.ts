import type { ContractStore } from "./contracts/store/durable-object";
import type { ArbiterMcpAgent } from "./mcp/agent";

/** Bindings and vars of the Worker, as wrangler.toml declares them. Secrets are optional strings. */
export interface Env {
  MCP_OBJECT: DurableObjectNamespace<ArbiterMcpAgent>;
  CONTRACT_STORE: DurableObjectNamespace<ContractStore>;
  OAUTH_KV: KVNamespace;
  RATE_LIMIT_KV: KVNamespace;
  PUBLIC_URL: string;
  ARBITER_DEV_SIGN_IN?: string;
  ALLOWED_HOSTNAMES?: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_ORG_CLAIM?: string;
  OIDC_ROLE_CLAIM?: string;
  OIDC_SCOPES?: string;
  /** Signs browser sessions and remembered consent. 32+ characters. Required unless dev sign-in is on. */
  SESSION_SECRET?: string;
}

export function devSignInEnabled(env: Env): boolean {
  return env.ARBITER_DEV_SIGN_IN === "true";
}
