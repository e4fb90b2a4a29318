/** Every REST route group, listed explicitly. */
import { auditRoutes } from "./audit.routes";
import { chatRoutes } from "./chat.routes";
import { ciKeyRoutes } from "./cikeys.routes";
import { contractRoutes } from "./contracts.routes";
import { identityRoutes } from "./identity.routes";
import { createApiHandler } from "./router";

export const apiResourceHandler = createApiHandler([...identityRoutes, ...auditRoutes, ...chatRoutes, ...ciKeyRoutes, ...contractRoutes]);
