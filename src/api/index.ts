/** Every REST route group, listed explicitly. */
import { ciKeyRoutes } from "./cikeys.routes";
import { contractRoutes } from "./contracts.routes";
import { identityRoutes } from "./identity.routes";
import { createApiHandler } from "./router";

export const apiResourceHandler = createApiHandler([...identityRoutes, ...ciKeyRoutes, ...contractRoutes]);
