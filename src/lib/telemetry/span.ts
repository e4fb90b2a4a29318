/**
 * Spans: one trace per governed operation (or per request that carries one in), children for what the operation
 * waits on. The current span travels with the async context (AsyncLocalStorage, nodejs_compat), so a module deep
 * in the call (the GraphQL gateway, the engine, a Durable Object stub) adds its child with `withSpan` without the
 * span being handed down; with no trace in the context `withSpan` only runs the function, so code paths without
 * telemetry pay one context lookup.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { safeAttributes, type Attributes } from "./attributes";
import type { MetricsAggregator } from "./metrics";

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export type SpanKind = keyof typeof SPAN_KIND;

export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: SpanKind;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  error: string | undefined;
}

/** Where a trace's finished spans and metrics go (exporter.ts). */
export interface SpanSink {
  addSpan(span: FinishedSpan): void;
  scheduleExport(): void;
  readonly metrics: MetricsAggregator;
}

/** `length` random lowercase hex digits (from a random UUID: W3C ids are lowercase hex, not all zeros). */
function hex(length: 16 | 32): string {
  const digits = crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", "");
  return digits.slice(0, length);
}

export class Span {
  readonly spanId = hex(16);
  private readonly startMs = Date.now();
  private readonly attributes: Attributes;
  private error: string | undefined;
  private ended = false;

  constructor(
    readonly traceId: string,
    readonly parentSpanId: string | undefined,
    readonly name: string,
    readonly kind: SpanKind,
    attributes: Attributes,
    readonly sink: SpanSink,
  ) {
    this.attributes = safeAttributes(attributes);
  }

  set(attributes: Attributes): void {
    Object.assign(this.attributes, safeAttributes(attributes));
  }

  /** Marks the span failed; `type` is a short class of error (never a message that could carry upstream text). */
  fail(type: string): void {
    this.error = type.slice(0, 100);
  }

  /** The W3C traceparent header naming this span as the parent (sampled). */
  traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-01`;
  }

  child(name: string, kind: SpanKind, attributes: Attributes = {}): Span {
    return new Span(this.traceId, this.spanId, name, kind, attributes, this.sink);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.addSpan({
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      name: this.name,
      kind: this.kind,
      startMs: this.startMs,
      endMs: Date.now(),
      attributes: this.attributes,
      error: this.error,
    });
    // A root ends its trace's work here; a child ending later (work after the answer) is sent with the next batch.
    this.sink.scheduleExport();
  }
}

const current = new AsyncLocalStorage<Span>();

export function currentSpan(): Span | undefined {
  return current.getStore();
}

/** Starts a span: a child of the current one, else the root of a new trace (or of `remoteParent`'s trace). */
export function startSpan(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  sink: SpanSink,
  remoteParent?: string,
): Span {
  const parent = currentSpan();
  if (parent) return parent.child(name, kind, attributes);
  const remote = remoteParent ? parseTraceparent(remoteParent) : undefined;
  return new Span(remote?.traceId ?? hex(32), remote?.spanId, name, kind, attributes, sink);
}

/** Counts into the current trace's metrics (nothing without one). */
export function countMetric(name: Parameters<MetricsAggregator["count"]>[0], attributes: Attributes, value = 1): void {
  currentSpan()?.sink.metrics.count(name, attributes, value);
}

/** Records a histogram value into the current trace's metrics (nothing without one). */
export function recordMetric(
  name: Parameters<MetricsAggregator["record"]>[0],
  attributes: Attributes,
  value: number,
): void {
  currentSpan()?.sink.metrics.record(name, attributes, value);
}

/** Runs `work` with `span` as the current span. */
export function runInSpan<T>(span: Span, work: () => T): T {
  return current.run(span, work);
}

/**
 * Runs `work` inside a child of the current span (ended when `work` settles; a throw marks it failed with the
 * error's class name). Without a current span, runs `work` alone.
 */
export function withSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T>;
export function withSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  work: (span: Span | undefined) => T,
): T;
export function withSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  work: (span: Span | undefined) => T,
): T {
  const parent = currentSpan();
  if (!parent) return work(undefined);
  const span = parent.child(name, kind, attributes);
  let result: T;
  try {
    result = current.run(span, () => work(span));
  } catch (error) {
    span.fail(error instanceof Error ? error.name : "error");
    span.end();
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        span.fail(error instanceof Error ? error.name : "error");
        span.end();
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The trace and parent span of a W3C traceparent header, or undefined when it is malformed or all zeros. */
export function parseTraceparent(header: string): { traceId: string; spanId: string } | undefined {
  const match = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, spanId: match[2]! };
}
