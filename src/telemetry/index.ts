/**
 * OpenTelemetry for the governed core: `telemetryFor(env)` is the operation tracer of this deployment, or
 * undefined when no OTLP endpoint is configured (config.ts), so a call without telemetry does no telemetry work.
 */
import type { Attributes } from "../lib/telemetry/attributes";
import { telemetryConfigOf, type TelemetryEnv } from "./config";
import { exporterFor, type OtlpExporter } from "./exporter";
import { runInSpan, startSpan, type Span, type SpanKind } from "../lib/telemetry/span";

export type { Attributes } from "../lib/telemetry/attributes";
export { countMetric, recordMetric, withSpan, currentSpan, type Span } from "../lib/telemetry/span";

export interface Telemetry {
  /** Runs `work` as a span (the root of a trace unless a span is current), ended when `work` settles. */
  span<T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    work: (span: Span) => Promise<T>,
    remoteParent?: string,
  ): Promise<T>;
  readonly exporter: OtlpExporter;
}

class OperationTelemetry implements Telemetry {
  constructor(readonly exporter: OtlpExporter) {}

  async span<T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    work: (span: Span) => Promise<T>,
    remoteParent?: string,
  ): Promise<T> {
    const span = startSpan(name, kind, attributes, this.exporter, remoteParent);
    try {
      return await runInSpan(span, () => work(span));
    } catch (error) {
      span.fail(error instanceof Error ? error.name : "error");
      throw error;
    } finally {
      span.end();
    }
  }
}

const tracers = new WeakMap<OtlpExporter, Telemetry>();

export function telemetryFor(env: TelemetryEnv): Telemetry | undefined {
  const config = telemetryConfigOf(env);
  if (!config) return undefined;
  const exporter = exporterFor(config);
  let telemetry = tracers.get(exporter);
  if (!telemetry) {
    telemetry = new OperationTelemetry(exporter);
    tracers.set(exporter, telemetry);
  }
  return telemetry;
}
