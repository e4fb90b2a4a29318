/**
 * The one caller type every contract service takes: who is calling, and the Worker's bindings. A REST request, an
 * MCP tool's context and a console page's context each have this shape, so a surface passes its own context as it
 * is. The organization always comes from the verified principal: another organization's projects are not reached.
 */
import type { Env } from "../../env";

/** The part of a verified principal the contract services read (any transport's principal has it). */
export interface ContractsPrincipal {
  organizationId: string;
  userId: string;
  /** Only for CI keys: the projects this principal may touch (["*"] = every project). Absent = no restriction. */
  projects?: readonly string[];
}

/** Who is calling, and the Worker's bindings: all a contract service needs. */
export interface ContractsCaller {
  principal: ContractsPrincipal;
  env: Env;
}
