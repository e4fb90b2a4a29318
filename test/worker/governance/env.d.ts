// Types `env` from cloudflare:test / cloudflare:workers as the Worker's own Env (bindings from wrangler.toml).
import type { Env as ArbiterEnv } from "../../../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends ArbiterEnv {}
  }
}
