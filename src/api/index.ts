/** Every REST route group, listed explicitly. */
import { ciKeyRoutes } from "./cikeys.routes";
import { identityRoutes } from "./identity.routes";
import { createApiHandler } from "./router";

export const apiResourceHandler = createApiHandler([...identityRoutes, ...ciKeyRoutes]);
