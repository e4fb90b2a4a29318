/** Every REST route group, listed explicitly. */
import type { Env } from "../env";
import { getAuthorizationServer } from "../oauth/servers";
import { specChangeNotifier } from "../tools/spec-arbitration/subscriptions";
import { acceptedBreakRoutes } from "./accepted-breaks.routes";
import { auditRoutes } from "./audit.routes";
import { chatRoutes } from "./chat.routes";
import { ciKeyRoutes } from "./cikeys.routes";
import { connectedClientRoutes } from "./clients.routes";
import { contractRoutes } from "./contracts.routes";
import { exchangeRoutes } from "./exchanges.routes";
import { identityRoutes } from "./identity.routes";
import { mcpToleranceRoutes } from "./mcp-tolerances.routes";
import { openApiRoutes } from "./openapi.route";
import { organizationRoutes } from "./organization.routes";
import { specCheckRoutes } from "./spec-checks.routes";
import { storageRoutes } from "./storage.routes";
import { usageRoutes } from "./usage.routes";
import { createApiHandler } from "./router";

/** The OAuth grants of a request's deployment, for the connected-clients routes. */
const oauthHelpers = (env: Env) => getAuthorizationServer(env).getOAuthApi(env);

/** Every REST route; route-docs.ts describes each for the contract check (test/worker/api/openapi-contract.test.ts). */
export const apiRoutes = [
  ...identityRoutes,
  ...openApiRoutes,
  ...auditRoutes,
  ...mcpToleranceRoutes,
  ...chatRoutes,
  ...ciKeyRoutes,
  ...specCheckRoutes,
  ...contractRoutes(specChangeNotifier),
  ...exchangeRoutes,
  ...acceptedBreakRoutes,
  ...usageRoutes,
  ...connectedClientRoutes(oauthHelpers),
  ...organizationRoutes,
  ...storageRoutes,
];

export const apiResourceHandler = createApiHandler(apiRoutes);
