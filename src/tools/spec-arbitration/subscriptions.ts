/**
 * Resource subscriptions of spec arbitration across Durable Objects. A session that subscribes (resources/subscribe)
 * to something that changes with a project (its latest verdict, its active contract, or spec://active/contract for
 * its selected project) is recorded as a subscriber of that project in its organization's ContractStore. When CI
 * stores a snapshot verdict, or the project gets a new active contract, each recorded session object
 * (`streamable-http:<sessionId>`) is asked to announce the change: it sends notifications/resources/updated for
 * the URIs it subscribed to, and answers whether it still follows the project. Sessions that no longer do
 * (unsubscribed, ended, never completed, or moved spec://active/contract to another project) are removed then;
 * a session that ends is also removed from every project at its end (forgetEndedSession).
 * 2026-07-28 clients have no session: the same change goes to the organization's ListenHub, which publishes it
 * on their open subscriptions/listen streams. `specChangeNotifier` is the store's change listener that does this
 * (injected into the REST routes by src/api/index.ts).
 */
import { cannotVerify } from "../../contracts/services/failure";
import {
  addSubscriber,
  forgetSession,
  MAX_SUBSCRIBERS_PER_PROJECT,
  MAX_SUBSCRIBERS_PER_USER,
  removeSubscriber,
  removeSubscribers,
  subscribersOf,
} from "../../contracts/services/subscribers";
import { Failure } from "../../core/failure";
import {
  checkProjectAccess,
  defaultProjectOf,
  requireProjectStatus,
  selectedProject,
} from "../../contracts/services/project-access";
import type { ContractChangeListener } from "../../contracts/store/events";
import type { Env } from "../../env";
import { announceToListenStreams, announceToSession } from "../../mcp/announce";
import type { CallContext, SessionView } from "../../mcp/context";
import type { ResourceChange } from "../../mcp/resource-change";
import { subscribedUris } from "../../mcp/session/subscription-list";
import { logWarn } from "../../lib/log";
import {
  ACTIVE_CONTRACT_URI,
  urisChangedByNewActiveContract,
  urisChangedByNewVerdict,
  urisFollowingProject,
} from "./uris";

type Context = Pick<CallContext, "principal" | "session" | "env" | "sessionId">;

export async function recordProjectSubscriber(context: Context, project: string): Promise<void> {
  if (!context.sessionId) {
    throw cannotVerify(
      "no_session",
      "Subscriptions need an MCP session: initialize over Streamable HTTP (the server answers with an Mcp-Session-Id) and subscribe within it.",
      "invalid-input",
    );
  }
  checkProjectAccess(context.principal, project);
  await requireProjectStatus(context, project);
  const recorded = await addSubscriber(context, project, context.sessionId);
  if (recorded === "full" || recorded === "user-full") throw noRoom(recorded, project);
}

/** The refusal of a subscription a bound does not leave room for: the project's, or the user's share of it. */
function noRoom(bound: "full" | "user-full", project: string): Failure {
  if (bound === "user-full")
    return new Failure(
      "forbidden",
      `Your sessions already hold ${MAX_SUBSCRIBERS_PER_USER} subscriptions to project ${project}, the most one person holds, so that the project's ${MAX_SUBSCRIBERS_PER_PROJECT} places stay open to the rest of the organization. End the sessions you no longer use (DELETE /mcp, or MCP_SESSION_TTL_SECONDS without a request) or unsubscribe them, then subscribe again.`,
      { limit: MAX_SUBSCRIBERS_PER_USER },
      "too_many_user_subscribers",
    );
  return new Failure(
    "forbidden",
    `Project ${project} already has ${MAX_SUBSCRIBERS_PER_PROJECT} subscribed sessions, the most one project records: each change is announced to every one of them. A session leaves that list when it ends (DELETE /mcp, or MCP_SESSION_TTL_SECONDS without a request); unsubscribe sessions you no longer use, or try again later.`,
    { limit: MAX_SUBSCRIBERS_PER_PROJECT },
    "too_many_project_subscribers",
  );
}

/**
 * A session ended (DELETE, its expiry, the platform's teardown): it is no longer recorded as a subscriber of any
 * project, so the organization's list does not keep ended sessions until each project's next change. Never throws:
 * a row left behind is dropped at that next change, as before.
 */
export async function forgetEndedSession(env: Env, organizationId: string, sessionId: string): Promise<void> {
  try {
    await forgetSession(env, organizationId, sessionId);
  } catch (error) {
    logWarn("could not forget an ended session's subscriptions", { organizationId, error });
  }
}

/**
 * After an unsubscribe: forgets the session as a subscriber of `project` unless another of its subscriptions
 * still follows the project (a session may follow one project through several URIs).
 */
export async function forgetProjectSubscriber(context: Context, project: string): Promise<void> {
  if (!context.sessionId) return;
  checkProjectAccess(context.principal, project);
  if (
    await followsProject(
      {
        session: context.session,
        organizationId: context.principal.organizationId,
        userId: context.principal.userId,
        env: context.env,
      },
      project,
    )
  )
    return;
  await removeSubscriber(context, project, context.sessionId);
}

async function followsProject(view: SessionView, project: string): Promise<boolean> {
  const held = new Set(await subscribedUris(view.session));
  for (const uri of urisFollowingProject(project)) {
    if (!held.has(uri)) continue;
    if (uri !== ACTIVE_CONTRACT_URI || (await activeContractChangedBy(project, view))) return true;
  }
  return false;
}

/** spec://active/contract follows the selected project: subscribing records the session there. */
export async function subscribeToActiveContract(context: Context): Promise<void> {
  const project = await selectedProject(context);
  if (project === undefined) {
    throw cannotVerify(
      "no_project_selected",
      "spec://active/contract follows your default project, and you have none: call spec_project_select first, then subscribe.",
      "invalid-input",
    );
  }
  await recordProjectSubscriber(context, project);
}

export async function unsubscribeFromActiveContract(context: Context): Promise<void> {
  const project = await selectedProject(context);
  if (project !== undefined) await forgetProjectSubscriber(context, project);
}

/**
 * When a session selects a project while subscribed to spec://active/contract, the subscription moves with it.
 * The selection stands either way: when the project has no room for another subscriber, the answer says so.
 */
export async function followSelectedProject(context: Context, project: string): Promise<string | null> {
  if (!context.sessionId || !(await subscribedUris(context.session)).includes(ACTIVE_CONTRACT_URI)) return null;
  const recorded = await addSubscriber(context, project, context.sessionId);
  if (recorded !== "full" && recorded !== "user-full") return null;
  return `Your subscription to ${ACTIVE_CONTRACT_URI} does not follow this project: ${noRoom(recorded, project).message}`;
}

/** Whether a change of `project` changes spec://active/contract for the session in `view`. */
export async function activeContractChangedBy(project: string, view: SessionView): Promise<boolean> {
  return (await defaultProjectOf(view.env, view.organizationId, view.userId)) === project;
}

export interface NotificationReport {
  notified: number;
  removed: number;
  failed: number;
}

/** How many session objects one announcement asks at a time. */
const ANNOUNCE_CONCURRENCY = 16;

/**
 * Tells every subscribed session of `project` that the project's `changed` resources changed, a few at a time, and
 * forgets in one store call those that no longer follow it. Never throws.
 */
async function announceToProjectSubscribers(
  env: Env,
  organizationId: string,
  project: string,
  changed: string[],
  what: Record<string, unknown>,
): Promise<NotificationReport> {
  const report: NotificationReport = { notified: 0, removed: 0, failed: 0 };
  let sessions: string[];
  try {
    sessions = await subscribersOf(env, organizationId, project);
  } catch (error) {
    logWarn("could not read project subscribers", { organizationId, project, ...what, error });
    return report;
  }
  const change = { topic: project, changed, watched: urisFollowingProject(project) };
  const gone: string[] = [];
  const announceEach = async (queue: string[]) => {
    for (let sessionId = queue.pop(); sessionId !== undefined; sessionId = queue.pop()) {
      try {
        if (await announceToSession(env, sessionId, change)) report.notified++;
        else gone.push(sessionId);
      } catch (error) {
        // Kept for the next change: the failure may be transient.
        report.failed++;
        logWarn("could not notify a project subscriber", { organizationId, project, ...what, error });
      }
    }
  };
  const queue = [...sessions].reverse();
  await Promise.all([
    announceToListeners(env, organizationId, change, what),
    ...Array.from({ length: Math.min(ANNOUNCE_CONCURRENCY, queue.length) }, () => announceEach(queue)),
  ]);
  if (gone.length > 0) {
    try {
      await removeSubscribers(env, organizationId, project, gone);
      report.removed = gone.length;
    } catch (error) {
      logWarn("could not forget sessions that left a project", { organizationId, project, ...what, error });
    }
  }
  return report;
}

/** 2026-07-28 clients follow changes on subscriptions/listen streams, held by the organization's ListenHub. */
async function announceToListeners(
  env: Env,
  organizationId: string,
  change: ResourceChange,
  what: Record<string, unknown>,
): Promise<void> {
  try {
    await announceToListenStreams(env, organizationId, change);
  } catch (error) {
    logWarn("could not notify listen streams", { organizationId, project: change.topic, ...what, error });
  }
}

/** A snapshot verdict was stored: its project's latest-verdict resources changed. */
export function notifyVerdictSubscribers(
  env: Env,
  organizationId: string,
  project: string,
  snapshotId: number,
): Promise<NotificationReport> {
  return announceToProjectSubscribers(env, organizationId, project, urisChangedByNewVerdict(project), { snapshotId });
}

/** `project` has a new active contract (uploaded, or an older version activated). */
export function notifyActiveContractSubscribers(
  env: Env,
  organizationId: string,
  project: string,
  version: number,
): Promise<NotificationReport> {
  return announceToProjectSubscribers(env, organizationId, project, urisChangedByNewActiveContract(project), {
    contractVersion: version,
  });
}

/** The store's change listener: announces stored verdicts and new active contracts to their followers. */
export const specChangeNotifier: ContractChangeListener = {
  async verdictStored(env, organizationId, project, snapshotId) {
    await notifyVerdictSubscribers(env, organizationId, project, snapshotId);
  },
  async activeContractChanged(env, organizationId, project, version) {
    await notifyActiveContractSubscribers(env, organizationId, project, version);
  },
};
