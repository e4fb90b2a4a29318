/** Every tool group, listed explicitly. Adding a group is one import and one entry. */
import type { Registrar } from "../mcp/context";
import { registerContractTools } from "./contracts.tools";
import { registerIdentityTools } from "./identity.tools";

export const registrars: readonly Registrar[] = [registerIdentityTools, registerContractTools];
