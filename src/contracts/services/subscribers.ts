/**
 * Which MCP sessions follow a project (they subscribed to a resource that changes with it): recorded in the
 * organization's store, at most MAX_SUBSCRIBERS_PER_PROJECT per project, so that a change is announced to each.
 */
import type { Env } from "../../env";
import { contractStore } from "../store/client";
import { MAX_SUBSCRIBERS_PER_PROJECT, MAX_SUBSCRIBERS_PER_USER, type SubscribeResult } from "../store/subscriber-table";
import type { ContractsCaller } from "./caller";
import { storeOf } from "./store-access";

export { MAX_SUBSCRIBERS_PER_PROJECT, MAX_SUBSCRIBERS_PER_USER };

/**
 * Records the caller's session `sessionId` as a subscriber of the project: "added", "held" (already was), "full"
 * (the project has no room) or "user-full" (the caller's sessions hold the most one user may).
 */
export function addSubscriber(caller: ContractsCaller, project: string, sessionId: string): Promise<SubscribeResult> {
  return storeOf(caller).subscribe(project, sessionId, caller.principal.userId);
}

export async function removeSubscriber(caller: ContractsCaller, project: string, sessionId: string): Promise<void> {
  await storeOf(caller).unsubscribe(project, sessionId);
}

/** The sessions recorded as subscribers of the project. */
export function subscribersOf(env: Env, organizationId: string, project: string): Promise<string[]> {
  return contractStore(env, organizationId).subscribers(project);
}

/** Forgets sessions that no longer follow the project, in one store call. */
export async function removeSubscribers(
  env: Env,
  organizationId: string,
  project: string,
  sessionIds: string[],
): Promise<void> {
  await contractStore(env, organizationId).unsubscribeAll(project, sessionIds);
}

/** Forgets an ended session as a subscriber of every project of its organization. */
export async function forgetSession(env: Env, organizationId: string, sessionId: string): Promise<void> {
  await contractStore(env, organizationId).forgetSession(sessionId);
}
