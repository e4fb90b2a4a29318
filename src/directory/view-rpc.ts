/**
 * What an organization's OrganizationView (view.ts) offers over RPC. Env types the DIRECTORY_VIEW binding by this
 * interface, so no caller imports the class; client.ts names an organization's view (organizationView), as it names
 * the directory (directoryStub).
 */
import type { ResolvedOrganization } from "./rpc";

export interface OrganizationViewRpc extends Rpc.DurableObjectBranded {
  /** The organization's record and upstream credential as the directory resolves them; null when it has no such one. */
  resolve(): Promise<ResolvedOrganization | null>;
  /** Drops what the view holds: the organization changed, and its next read goes to the directory. */
  forget(): Promise<void>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** One read replica of the directory per organization, in memory only (src/directory/view.ts). */
    DIRECTORY_VIEW: DurableObjectNamespace<OrganizationViewRpc>;
  }
}
