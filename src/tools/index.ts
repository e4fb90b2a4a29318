/**
 * Every tool group, listed explicitly. Adding a group is one import and one entry. A group's MCP surface (tools,
 * resources, prompts, subscriptions) lives in its own folder (orders/, spec-arbitration/); small groups are one file.
 */
import type { Registrar } from "../mcp/context";
import { registerAuditTools } from "./audit.tools";
import { registerIdentityTools } from "./identity.tools";
import { registerOrderPrompts } from "./orders/prompts";
import { registerOrderResources } from "./orders/resources";
import { registerOrderTools } from "./orders/tools";
import { registerContractTools } from "./spec-arbitration";

export const registrars: readonly Registrar[] = [
  registerIdentityTools,
  registerOrderTools,
  registerOrderResources,
  registerOrderPrompts,
  registerContractTools,
  registerAuditTools,
];
