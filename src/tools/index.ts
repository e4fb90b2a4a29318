/** Every tool group, listed explicitly. Adding a group is one import and one entry. */
import type { Registrar } from "../mcp/context";
import { registerIdentityTools } from "./identity.tools";

export const registrars: readonly Registrar[] = [registerIdentityTools];
