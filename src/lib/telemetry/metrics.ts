/**
 * Metrics, aggregated in memory per isolate and exported as deltas with each span batch (exporter.ts):
 *  - arbiter.operations (counter): governed operations by kind, operation and outcome;
 *  - arbiter.operation.duration (histogram, ms): their latency, same attributes;
 *  - arbiter.refusals (counter): refusals by reason (scope, quota, input, rate-limit store);
 *  - arbiter.verdicts (counter): conformance verdicts by outcome (approved, rejected);
 *  - arbiter.upload.size (histogram, bytes): uploaded documents.
 * Aggregating is plain data, shared by the requests an isolate serves; only the export does I/O.
 */
import { safeAttributes, type Attributes } from "./attributes";

export type CounterName = "arbiter.operations" | "arbiter.refusals" | "arbiter.verdicts";
export type HistogramName = "arbiter.operation.duration" | "arbiter.upload.size";

export const HISTOGRAM_BOUNDS: Record<HistogramName, readonly number[]> = {
  "arbiter.operation.duration": [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
  "arbiter.upload.size": [1024, 10_240, 102_400, 1_048_576, 10_485_760, 26_214_400],
};

export const METRIC_UNITS: Record<CounterName | HistogramName, string> = {
  "arbiter.operations": "{operation}",
  "arbiter.refusals": "{refusal}",
  "arbiter.verdicts": "{verdict}",
  "arbiter.operation.duration": "ms",
  "arbiter.upload.size": "By",
};

export interface CounterPoint {
  attributes: Attributes;
  value: number;
}

export interface HistogramPoint {
  attributes: Attributes;
  count: number;
  sum: number;
  buckets: number[];
}

export interface MetricsDelta {
  startMs: number;
  endMs: number;
  counters: Map<CounterName, CounterPoint[]>;
  histograms: Map<HistogramName, HistogramPoint[]>;
}

const keyOf = (attributes: Attributes) =>
  JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)));

export class MetricsAggregator {
  private startMs = Date.now();
  private counters = new Map<CounterName, Map<string, CounterPoint>>();
  private histograms = new Map<HistogramName, Map<string, HistogramPoint>>();

  count(name: CounterName, attributes: Attributes, value = 1): void {
    const safe = safeAttributes(attributes);
    const points = this.counters.get(name) ?? new Map<string, CounterPoint>();
    this.counters.set(name, points);
    const key = keyOf(safe);
    const point = points.get(key) ?? { attributes: safe, value: 0 };
    point.value += value;
    points.set(key, point);
  }

  record(name: HistogramName, attributes: Attributes, value: number): void {
    if (!Number.isFinite(value)) return;
    const safe = safeAttributes(attributes);
    const bounds = HISTOGRAM_BOUNDS[name];
    const points = this.histograms.get(name) ?? new Map<string, HistogramPoint>();
    this.histograms.set(name, points);
    const key = keyOf(safe);
    const point = points.get(key) ?? {
      attributes: safe,
      count: 0,
      sum: 0,
      buckets: new Array<number>(bounds.length + 1).fill(0),
    };
    point.count++;
    point.sum += value;
    let bucket = bounds.findIndex((bound) => value <= bound);
    if (bucket < 0) bucket = bounds.length;
    point.buckets[bucket]!++;
    points.set(key, point);
  }

  get empty(): boolean {
    return this.counters.size === 0 && this.histograms.size === 0;
  }

  /** What was recorded since the last take, and a fresh start. */
  take(): MetricsDelta {
    const delta: MetricsDelta = {
      startMs: this.startMs,
      endMs: Date.now(),
      counters: new Map([...this.counters].map(([name, points]) => [name, [...points.values()]])),
      histograms: new Map([...this.histograms].map(([name, points]) => [name, [...points.values()]])),
    };
    this.startMs = delta.endMs;
    this.counters = new Map();
    this.histograms = new Map();
    return delta;
  }
}
