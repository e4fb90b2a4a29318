/** Every tool group, listed explicitly. Adding a group is one import and one entry. */
import type { Registrar } from "../mcp/context";
import { registerAuditTools } from "./audit.tools";
import { registerContractTools } from "./contracts.tools";
import { registerIdentityTools } from "./identity.tools";
import { registerOrderPrompts } from "./orders.prompts";
import { registerOrderResources } from "./orders.resources";
import { registerOrderTools } from "./orders.tools";

export const registrars: readonly Registrar[] = [
  registerIdentityTools,
  registerOrderTools,
  registerOrderResources,
  registerOrderPrompts,
  registerContractTools,
  registerAuditTools,
];
