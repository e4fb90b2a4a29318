/**
 * OrganizationView: one object per organization that answers the hot path's reads of its directory record, so
 * that the one directory object of the deployment is read once per change of an organization rather than once a
 * second by every isolate that serves it (client.ts caches in front of this, per isolate, as before).
 *
 * It holds the resolved organization in memory only (its upstream credential too, as every isolate's cache does):
 * nothing is stored, so an evicted view starts empty and reads the directory again. An entry is dropped when the
 * organization changes: the directory tells the view after each change it logs (store.ts, from a durable list of
 * views to tell, retried until told), and the services that made the change tell it too before they answer, so the
 * change applies to their next request. Past VIEW_MAX_AGE_MS an entry is read again anyway, the bound for what no
 * change announces (the platform's caps, which set the default storage quota).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { directoryStub } from "./client";
import type { ResolvedOrganization } from "./rpc";
import type { OrganizationViewRpc } from "./view-rpc";

/** The oldest entry a view answers with: what no change announces reaches the hot path within this (plus 2 s). */
export const VIEW_MAX_AGE_MS = 30_000;

interface Read {
  value: Promise<ResolvedOrganization | null>;
  at: number;
}

export class OrganizationView extends DurableObject<Env> implements OrganizationViewRpc {
  private read: Read | undefined;

  /** The organization this object answers for: its name (organizationView names it by the organization's id). */
  private get organizationId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("OrganizationView is reached by idFromName only");
    return name;
  }

  async resolve(): Promise<ResolvedOrganization | null> {
    const now = Date.now();
    if (!this.read || now - this.read.at >= VIEW_MAX_AGE_MS) {
      // One directory read for every request that finds no entry meanwhile; a read that fails is not kept.
      const read: Read = { value: directoryStub(this.env).resolve(this.organizationId), at: now };
      this.read = read;
      read.value.catch(() => {
        if (this.read === read) this.read = undefined;
      });
    }
    return this.read.value;
  }

  async forget(): Promise<void> {
    // A read still in flight may have begun before the change: it answers the requests waiting for it, and the
    // next request reads again.
    this.read = undefined;
  }
}
