/**
 * One object per organization that writes its export into the bucket (export-job.ts): the job's state is kept in
 * the object's storage under one key, each batch runs in an alarm of its own (so each has an invocation's whole
 * allowance of subrequests and CPU), and batches never overlap. A batch that fails is run again a minute later from
 * the state before it; after MAX_FAILURES in a row the job fails and its upload is aborted. A complete archive is
 * deleted ARCHIVE_KEEP_MS after it was finished, by the same alarm.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { logInfo, logWarn } from "../lib/log";
import { Serial } from "../lib/serial";
import {
  deleteExportObjects,
  type ExportJob,
  type ExportWork,
  exportBatch,
  MAX_FAILURES,
  newExport,
} from "./export-job";
import type { OrganizationExporterRpc } from "./exporter-rpc";

const STATE_KEY = "export";
/** The pause between two batches: the next one starts at once in its own alarm invocation. */
const NEXT_BATCH_MS = 50;
const RETRY_MS = 60_000;

export class OrganizationExporter extends DurableObject<Env> implements OrganizationExporterRpc {
  private readonly serial = new Serial();

  /** The organization this object exports: its name (organizationExporter names it by the organization's id). */
  private get organizationId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("OrganizationExporter is reached by idFromName only");
    return name;
  }

  private async work(): Promise<ExportWork | null> {
    return (await this.ctx.storage.get<ExportWork>(STATE_KEY)) ?? null;
  }

  start(organization: unknown): Promise<ExportJob> {
    return this.serial.run(async () => {
      const previous = await this.work();
      if (previous?.job.status === "running") return previous.job;
      if (previous) await deleteExportObjects(this.env, previous);
      const work = await newExport(this.env, this.organizationId, organization);
      await this.ctx.storage.put(STATE_KEY, work);
      await this.ctx.storage.setAlarm(Date.now());
      logInfo("organization export started", { organizationId: this.organizationId, exportId: work.job.id });
      return work.job;
    });
  }

  async job(): Promise<ExportJob | null> {
    return (await this.work())?.job ?? null;
  }

  purge(): Promise<void> {
    return this.serial.run(async () => {
      const work = await this.work();
      if (work) await deleteExportObjects(this.env, work);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
    });
  }

  override async alarm(): Promise<void> {
    await this.serial.run(async () => {
      const work = await this.work();
      if (work?.job.status === "running") await this.runBatch(work);
      else if (work?.job.status === "complete" && work.job.expiresAt) {
        // An alarm before the expiry (one set again) only sets the expiry's alarm again.
        if (Date.parse(work.job.expiresAt) > Date.now())
          return this.ctx.storage.setAlarm(Date.parse(work.job.expiresAt));
        await deleteExportObjects(this.env, work);
        await this.ctx.storage.put(STATE_KEY, { ...work, job: { ...work.job, status: "expired" } });
      }
    });
  }

  private async runBatch(work: ExportWork): Promise<void> {
    const { organizationId } = work;
    let next: ExportWork;
    try {
      next = await exportBatch(this.env, work);
    } catch (error) {
      const failures = work.failures + 1;
      const message = error instanceof Error ? error.message.slice(0, 300) : "the batch failed";
      const failed = failures >= MAX_FAILURES;
      logWarn(failed ? "organization export failed" : "organization export batch failed; retried in a minute", {
        organizationId,
        exportId: work.job.id,
        error,
      });
      const job: ExportJob = { ...work.job, status: failed ? "failed" : "running", error: message };
      await this.ctx.storage.put(STATE_KEY, { ...work, failures, job });
      if (failed) await deleteExportObjects(this.env, { ...work, job });
      else await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
      return;
    }
    await this.ctx.storage.put(STATE_KEY, next);
    const { job } = next;
    if (job.status === "complete") {
      logInfo("organization export complete", {
        organizationId,
        exportId: job.id,
        bytes: job.bytes,
        batches: job.batches,
      });
      if (job.expiresAt) await this.ctx.storage.setAlarm(Date.parse(job.expiresAt));
    } else await this.ctx.storage.setAlarm(Date.now() + NEXT_BATCH_MS);
  }
}
