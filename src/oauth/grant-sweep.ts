/**
 * Revoking grants across a whole organization, a bounded batch at a time: when a role cap loses a scope (every
 * holder's grants beyond what their role may grant now), when the organization is being deleted (every grant, then
 * the grant-holder index with its names), and when one member's removal or demotion has more grants to revoke than
 * its request reaches (a removed member's subjects keep nothing).
 *
 * Why batches: the OAuth library lists and revokes grants one user at a time, and one holder costs a KV list, a read
 * per grant and, per revoked grant, a list and a delete per token plus one. Workers KV allows 1,000 operations per
 * invocation, so one request that walks every holder fails part-way at a few dozen holders with a few clients each,
 * and the rest of the grants stay. Here a batch spends at most SWEEP_KV_BUDGET operations (counted on the binding
 * itself), stops between two grants, and says where the next batch starts; the GrantSweeper object (grant-sweeper.ts)
 * keeps that place and runs the batches. Each batch reads the organization as it is then: a holder keeps what their
 * role may grant at that moment, so a cap widened again before the sweep reaches them takes nothing more.
 *
 * Requests never wait for the sweep to be correct: they hold every token to the role's cap as it is now
 * (withinRoleCap), and a deleted organization is refused at its gate. The sweep makes the OAuth store agree.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { directoryStub } from "../directory/client";
import { organizationGrantable } from "../directory/grantable";
import type { OrganizationSettings } from "../directory/settings";
import type { Env } from "../env";
import { forgetGrantHolderPage, listGrantHolderPage } from "./grant-holders";
import { getAuthorizationServer, grantInOrganization, grantUserId } from "./servers";

/** KV operations one batch may start; the last grant it revokes may add its tokens' deletes beyond it. */
export const SWEEP_KV_BUDGET = 500;
/** Holders read per KV list page (one list operation). */
const HOLDERS_PER_PAGE = 50;
/** Index entries removed per list in the forget phase. */
const FORGET_PER_LIST = 100;

export interface SweepState {
  organizationId: string;
  /** "revoke": walking the holders; "forget": removing the index (a deleted organization); then "finished". */
  phase: "revoke" | "forget" | "finished";
  /** The KV cursor of the holder page being walked (null: the first page). */
  cursor: string | null;
  /** The last holder of that page whose grants are all swept (null: none yet). */
  lastSubject: string | null;
  revoked: number;
  batches: number;
  /** KV operations every batch of this sweep started, together (absent in a sweep stored before it was counted). */
  kvOperations?: number;
  requestedAt: string;
  finishedAt: string | null;
  /** KV operations the last batch started, and why it stopped early when it failed. */
  lastBatch: { kvOperations: number; error: string | null } | null;
}

export function newSweep(organizationId: string, now = new Date()): SweepState {
  return {
    organizationId,
    phase: "revoke",
    cursor: null,
    lastSubject: null,
    revoked: 0,
    batches: 0,
    kvOperations: 0,
    requestedAt: now.toISOString(),
    finishedAt: null,
    lastBatch: null,
  };
}

/** Counts the operations started on a KV binding; `spent` once the budget is used. */
class KvBudget {
  used = 0;
  constructor(private readonly limit: number) {}

  get spent(): boolean {
    return this.used >= this.limit;
  }

  get left(): number {
    return Math.max(0, this.limit - this.used);
  }

  counting(kv: KVNamespace): KVNamespace {
    return new Proxy(kv, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          this.used++;
          return value.apply(target, args);
        };
      },
    });
  }
}

/**
 * Revokes the grants `subject` holds in `organizationId` whose scopes go beyond `keep` (all of them when `keep` is
 * empty). A grant another organization recorded under the same user id (grantUserIdIsAmbiguous) is left alone. With a
 * budget, stops before a grant once it is spent: `complete` is false and the next call starts again from this user's
 * first grant (the ones revoked are gone).
 */
async function revokeGrantsBeyond(
  oauth: OAuthHelpers,
  organizationId: string,
  subject: string,
  keep: readonly string[],
  budget?: { readonly spent: boolean },
): Promise<{ revoked: number; complete: boolean }> {
  const userId = grantUserId(organizationId, subject);
  const allowed = new Set(keep);
  let revoked = 0;
  let cursor: string | undefined;
  do {
    if (budget?.spent) return { revoked, complete: false };
    const page = await oauth.listUserGrants(userId, cursor ? { cursor } : {});
    for (const grant of page.items) {
      if (!grantInOrganization(grant, organizationId)) continue;
      if (allowed.size > 0 && grant.scope.every((scope) => allowed.has(scope))) continue;
      if (budget?.spent) return { revoked, complete: false };
      await oauth.revokeGrant(grant.id, userId);
      revoked++;
    }
    cursor = page.cursor;
  } while (cursor);
  return { revoked, complete: true };
}

/**
 * What a holder with `roles` may keep: what every one of them may grant (a subject listed under two addresses);
 * nothing for no role (a removed member's subject).
 */
function keptScopes(settings: OrganizationSettings, roles: readonly string[]): string[] {
  if (roles.length === 0) return [];
  return roles
    .map((role) => organizationGrantable(settings, role))
    .reduce((kept, grantable) => kept.filter((scope) => grantable.includes(scope)));
}

/** KV operations a request's own revocation (one member removed or demoted) starts before it leaves the rest to the sweep. */
const REQUEST_KV_BUDGET = 400;

/**
 * Revokes the grants of one member's `subjects` beyond `keep` within the request, up to `limit` KV operations.
 * `complete` is false when it could not reach them all (more grants than the budget, or KV failing): the caller
 * then asks for the organization's sweep, which takes up the rest durably. Never throws.
 */
export async function revokeSubjectsBeyond(
  env: Env,
  organizationId: string,
  subjects: readonly string[],
  keep: readonly string[],
  limit = REQUEST_KV_BUDGET,
): Promise<{ revoked: number; complete: boolean }> {
  const budget = new KvBudget(limit);
  const kvEnv: Env = { ...env, OAUTH_KV: budget.counting(env.OAUTH_KV) };
  const oauth = getAuthorizationServer(env).getOAuthApi(kvEnv);
  let revoked = 0;
  try {
    for (const subject of subjects) {
      const swept = await revokeGrantsBeyond(oauth, organizationId, subject, keep, budget);
      revoked += swept.revoked;
      if (!swept.complete) return { revoked, complete: false };
    }
    return { revoked, complete: true };
  } catch {
    return { revoked, complete: false };
  }
}

/**
 * Runs one batch of `state`'s sweep and answers the state after it. Never throws: a failure (KV or the directory
 * unreachable) ends the batch early with what it did kept and the error named in `lastBatch`; the next batch goes on
 * from there.
 */
export async function sweepBatch(env: Env, state: SweepState, limit = SWEEP_KV_BUDGET): Promise<SweepState> {
  const budget = new KvBudget(limit);
  const kvEnv: Env = { ...env, OAUTH_KV: budget.counting(env.OAUTH_KV) };
  const oauth = getAuthorizationServer(env).getOAuthApi(kvEnv);
  const next: SweepState = { ...state, batches: state.batches + 1 };
  const { organizationId } = state;
  let error: string | null = null;
  try {
    const directory = directoryStub(env);
    const record = await directory.organization(organizationId);
    // A deleted organization (or one deleting) keeps nothing; otherwise a holder keeps what their role grants now.
    const settings = record && record.status !== "deleting" && record.status !== "deleted" ? record.settings : null;
    while (next.phase === "revoke" && !budget.spent) {
      const page = await listGrantHolderPage(kvEnv, organizationId, {
        limit: HOLDERS_PER_PAGE,
        ...(next.cursor ? { cursor: next.cursor } : {}),
      });
      const done = next.lastSubject === null ? -1 : page.holders.findIndex((h) => h.subject === next.lastSubject);
      const todo = page.holders.slice(done + 1);
      const roles =
        settings && todo.length > 0
          ? await directory.subjectRoles(
              organizationId,
              todo.map((holder) => holder.subject),
            )
          : {};
      for (const holder of todo) {
        // A holder not on the member list (signed in without an e-mail address) is held to the default role.
        const keep = settings ? keptScopes(settings, roles[holder.subject] ?? [settings.defaultRole]) : [];
        const swept = await revokeGrantsBeyond(oauth, organizationId, holder.subject, keep, budget);
        next.revoked += swept.revoked;
        if (!swept.complete) break;
        next.lastSubject = holder.subject;
      }
      if (budget.spent && next.lastSubject !== page.holders.at(-1)?.subject) break;
      next.lastSubject = null;
      if (page.cursor) next.cursor = page.cursor;
      else {
        next.cursor = null;
        next.phase = settings ? "finished" : "forget";
      }
    }
    while (next.phase === "forget" && budget.left > 1) {
      if ((await forgetGrantHolderPage(kvEnv, organizationId, Math.min(FORGET_PER_LIST, budget.left - 1))) === 0)
        next.phase = "finished";
    }
  } catch (failure) {
    error = failure instanceof Error ? failure.message.slice(0, 200) : "the batch failed";
  }
  if (next.phase === "finished") next.finishedAt = new Date().toISOString();
  next.lastBatch = { kvOperations: budget.used, error };
  next.kvOperations = (state.kvOperations ?? 0) + budget.used;
  return next;
}
