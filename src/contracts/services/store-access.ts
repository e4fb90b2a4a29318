/**
 * How the contract services reach the store: the organization's store, and the store holding one project's records
 * (its own, or the organization's for a project from before the split). Only the services use it (the layers test
 * holds it): surfaces call the use cases (projects, contract versions, snapshots, verdicts, builds, exchanges,
 * subscribers, keys), never a store method.
 */
import { contractStore, type OrganizationStore, type ProjectPlace, projectPlace } from "../store/client";
import type { ContractsCaller } from "./caller";

/** The organization's store: its projects list, default projects, subscribers, CI keys and storage. */
export function storeOf(caller: ContractsCaller): OrganizationStore {
  return contractStore(caller.env, caller.principal.organizationId);
}

/** Where a project's records and content are. */
export function placeOf(caller: ContractsCaller, project: string): Promise<ProjectPlace> {
  return projectPlace(caller.env, caller.principal.organizationId, project);
}

/** The store holding a project's records. */
export async function projectStoreOf(caller: ContractsCaller, project: string): Promise<ProjectPlace["store"]> {
  return (await placeOf(caller, project)).store;
}
