/**
 * What an organization's OrganizationExporter (exporter.ts) offers over RPC. Env types the EXPORTER binding by this
 * interface, so no caller imports the class.
 */
import type { Env } from "../env";
import type { ExportJob } from "./export-job";

export interface OrganizationExporterRpc extends Rpc.DurableObjectBranded {
  /**
   * Starts the organization's export into the bucket, given the organization as the archive shows it (its settings,
   * secrets only as set/unset), and answers the job at once; its batches run in the object's alarms. An export
   * under way is answered as it is (nothing starts twice); a finished one is replaced, its archive deleted.
   */
  start(organization: unknown): Promise<ExportJob>;
  /** The organization's last export, or null when it never had one. */
  job(): Promise<ExportJob | null>;
  /** Deletes the archive and forgets the job (the organization's data removal). */
  purge(): Promise<void>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** Organization exports written into the DOCUMENTS bucket, a bounded batch at a time (src/organizations/export-job.ts). */
    EXPORTER: DurableObjectNamespace<OrganizationExporterRpc>;
  }
}

/** The exporter of `organizationId`. */
export function organizationExporter(
  env: Pick<Env, "EXPORTER">,
  organizationId: string,
): DurableObjectStub<OrganizationExporterRpc> {
  return env.EXPORTER.get(env.EXPORTER.idFromName(organizationId));
}
