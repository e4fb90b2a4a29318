/** Every REST route group, listed explicitly. */
import { identityRoutes } from "./identity.routes";
import { createApiHandler } from "./router";

export const apiResourceHandler = createApiHandler([...identityRoutes]);
