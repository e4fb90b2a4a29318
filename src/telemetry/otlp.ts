/**
 * OTLP/HTTP JSON encoding of spans and metric deltas (opentelemetry-proto, JSON mapping): ids as lowercase hex,
 * times as decimal nanosecond strings, 64-bit integers as strings, enums as numbers.
 */
import type { Attributes } from "../lib/telemetry/attributes";
import { HISTOGRAM_BOUNDS, METRIC_UNITS, type MetricsDelta } from "../lib/telemetry/metrics";
import { SPAN_KIND, type FinishedSpan } from "../lib/telemetry/span";
import { ARBITER_VERSION } from "../version";

type AnyValue = { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number };
type KeyValue = { key: string; value: AnyValue };

const SCOPE = { name: "arbiter", version: ARBITER_VERSION };
/** AGGREGATION_TEMPORALITY_DELTA: each export carries what happened since the previous one. */
const DELTA = 1;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

function nanos(ms: number): string {
  return `${Math.round(ms)}000000`;
}

function keyValues(attributes: Attributes): KeyValue[] {
  return Object.entries(attributes).map(([key, value]) => {
    if (typeof value === "string") return { key, value: { stringValue: value } };
    if (typeof value === "boolean") return { key, value: { boolValue: value } };
    return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value as number } };
  });
}

function resource(serviceName: string) {
  return { attributes: keyValues({}).concat([{ key: "service.name", value: { stringValue: serviceName } }]) };
}

export function encodeSpans(serviceName: string, spans: readonly FinishedSpan[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: resource(serviceName),
        scopeSpans: [
          {
            scope: SCOPE,
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: SPAN_KIND[span.kind],
              startTimeUnixNano: nanos(span.startMs),
              endTimeUnixNano: nanos(Math.max(span.startMs, span.endMs)),
              attributes: keyValues(span.attributes),
              status: span.error ? { code: STATUS_ERROR, message: span.error } : { code: STATUS_OK },
            })),
          },
        ],
      },
    ],
  });
}

export function encodeMetrics(serviceName: string, delta: MetricsDelta): string {
  const start = nanos(delta.startMs);
  const end = nanos(Math.max(delta.startMs, delta.endMs));
  const metrics: unknown[] = [];
  for (const [name, points] of delta.counters) {
    metrics.push({
      name,
      unit: METRIC_UNITS[name],
      sum: {
        aggregationTemporality: DELTA,
        isMonotonic: true,
        dataPoints: points.map((point) => ({
          attributes: keyValues(point.attributes),
          startTimeUnixNano: start,
          timeUnixNano: end,
          asInt: String(point.value),
        })),
      },
    });
  }
  for (const [name, points] of delta.histograms) {
    metrics.push({
      name,
      unit: METRIC_UNITS[name],
      histogram: {
        aggregationTemporality: DELTA,
        dataPoints: points.map((point) => ({
          attributes: keyValues(point.attributes),
          startTimeUnixNano: start,
          timeUnixNano: end,
          count: String(point.count),
          sum: point.sum,
          bucketCounts: point.buckets.map(String),
          explicitBounds: [...HISTOGRAM_BOUNDS[name]],
        })),
      },
    });
  }
  return JSON.stringify({
    resourceMetrics: [{ resource: resource(serviceName), scopeMetrics: [{ scope: SCOPE, metrics }] }],
  });
}
