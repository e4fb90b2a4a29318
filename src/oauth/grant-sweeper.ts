/**
 * One object per organization that runs its grant sweeps (grant-sweep.ts): the sweep's place is kept in the object's
 * storage under one key, the first batch runs in the request that asked for the sweep, and each later batch in an
 * alarm of its own, so that every batch has an invocation's whole KV allowance. Batches never overlap: a sweep asked
 * for while one runs waits for it, then starts again from the first holder. A batch that fails is retried a minute
 * later from where it stopped. A finished sweep's state stays, as the last sweep's record, until the next one.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { logInfo, logWarn } from "../lib/log";
import { Serial } from "../lib/serial";
import { newSweep, type SweepState, sweepBatch } from "./grant-sweep";
import type { GrantSweeperRpc } from "./grant-sweeper-rpc";

const STATE_KEY = "sweep";
/** The pause between two batches: the next one starts at once in its own alarm invocation. */
const NEXT_BATCH_MS = 100;
const RETRY_MS = 60_000;

export class GrantSweeper extends DurableObject<Env> implements GrantSweeperRpc {
  private readonly serial = new Serial();

  sweep(): Promise<SweepState> {
    return this.serial.run(async () => {
      await this.ctx.storage.put(STATE_KEY, newSweep(this.organizationId));
      return (await this.runBatch()) as SweepState;
    });
  }

  /** The organization this object sweeps: its name (grantSweeper names it by the organization's id). */
  private get organizationId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("GrantSweeper is reached by idFromName only");
    return name;
  }

  async progress(): Promise<SweepState | null> {
    return (await this.ctx.storage.get<SweepState>(STATE_KEY)) ?? null;
  }

  override async alarm(): Promise<void> {
    await this.serial.run(() => this.runBatch());
  }

  private async runBatch(): Promise<SweepState | null> {
    const state = await this.progress();
    if (!state || state.phase === "finished") return state;
    const next = await sweepBatch(this.env, state);
    await this.ctx.storage.put(STATE_KEY, next);
    const { organizationId, revoked, batches } = next;
    if (next.phase === "finished") logInfo("grant sweep finished", { organizationId, revoked, batches });
    else if (next.lastBatch?.error) {
      logWarn("grant sweep batch failed; retried in a minute", { organizationId, error: next.lastBatch.error });
      await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
    } else await this.ctx.storage.setAlarm(Date.now() + NEXT_BATCH_MS);
    return next;
  }
}
