/**
 * The OTLP/HTTP exporter of one isolate (the Worker's, or a Durable Object's): finished spans and metric deltas are
 * buffered in memory and sent together, BATCH_MS after the first of a batch, in the background (waitUntil): an
 * export never delays or fails a call, and a failed one is logged (status only) and dropped. Requests share the
 * buffer as plain data; each export's fetch belongs to the request that started it.
 */
import { waitUntil } from "cloudflare:workers";
import { logWarn } from "../lib/log";
import type { TelemetryConfig } from "./config";
import { MetricsAggregator } from "../lib/telemetry/metrics";
import { encodeMetrics, encodeSpans } from "./otlp";
import type { FinishedSpan, SpanSink } from "../lib/telemetry/span";

/** How long a batch gathers before it is sent. */
export const BATCH_MS = 100;
/** Spans kept at most while an export is on its way; older ones are dropped (and counted). */
const MAX_BUFFERED_SPANS = 2048;
const EXPORT_TIMEOUT_MS = 5_000;

/** Keeps the background export alive past the answer; outside any request (a test) the promise just runs. */
function keepAlive(work: Promise<void>): void {
  try {
    waitUntil(work);
  } catch {
    // No request context to extend: the promise still runs to its end.
  }
}

export class OtlpExporter implements SpanSink {
  readonly metrics = new MetricsAggregator();
  private spans: FinishedSpan[] = [];
  private dropped = 0;
  private scheduled = false;

  constructor(readonly config: TelemetryConfig) {}

  addSpan(span: FinishedSpan): void {
    if (this.spans.length >= MAX_BUFFERED_SPANS) {
      this.spans.shift();
      this.dropped++;
    }
    this.spans.push(span);
  }

  /** Sends what is buffered BATCH_MS from now, unless a send is already scheduled (which will take it along). */
  scheduleExport(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    keepAlive(
      (async () => {
        await new Promise((done) => setTimeout(done, BATCH_MS));
        this.scheduled = false;
        await this.exportNow();
      })(),
    );
  }

  async exportNow(): Promise<void> {
    const spans = this.spans;
    this.spans = [];
    const metrics = this.metrics.empty ? undefined : this.metrics.take();
    if (this.dropped > 0) {
      logWarn("telemetry spans dropped: the export could not keep up", { dropped: this.dropped });
      this.dropped = 0;
    }
    await Promise.all([
      spans.length ? this.post(this.config.tracesUrl, encodeSpans(this.config.serviceName, spans)) : undefined,
      metrics ? this.post(this.config.metricsUrl, encodeMetrics(this.config.serviceName, metrics)) : undefined,
    ]);
  }

  private async post(url: string, body: string): Promise<void> {
    try {
      // redirect: "manual": the headers carry the collector's credential, which a redirect would hand to another origin.
      const response = await fetch(url, {
        method: "POST",
        headers: { ...this.config.headers, "Content-Type": "application/json" },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.status >= 300 && response.status < 400)
        logWarn(
          "telemetry export redirected: not followed, point OTEL_EXPORTER_OTLP_ENDPOINT at the collector itself",
          { endpoint: new URL(url).pathname, status: response.status },
        );
      else if (!response.ok)
        logWarn("telemetry export refused", { endpoint: new URL(url).pathname, status: response.status });
    } catch (error) {
      logWarn("telemetry export failed", {
        endpoint: new URL(url).pathname,
        error: error instanceof Error ? error.name : "error",
      });
    }
  }
}

const exporters = new Map<string, OtlpExporter>();

/** The isolate's exporter for `config`: one per endpoint, whichever env object the request came with. */
export function exporterFor(config: TelemetryConfig): OtlpExporter {
  const key = JSON.stringify([config.tracesUrl, config.metricsUrl, config.serviceName, config.headers]);
  let exporter = exporters.get(key);
  if (!exporter) {
    exporter = new OtlpExporter(config);
    exporters.set(key, exporter);
  }
  return exporter;
}
