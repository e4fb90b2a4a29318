/**
 * Durable Object calls as child spans: `tracedStub` gives back the stub itself when no span is current (no
 * telemetry, no cost), else a view whose method calls each run in a client span named `<Class>.<method>`, and
 * which hands the callee the caller's traceparent when the method takes one (`withTraceparent`).
 */
import { currentSpan, withSpan } from "../lib/telemetry/span";

const NOT_RPC = new Set<PropertyKey>(["fetch", "connect", "id", "name", "then", "dup"]);

export function tracedStub<T extends object>(stub: T, className: string): T {
  if (!currentSpan()) return stub;
  return new Proxy(stub, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== "string" || NOT_RPC.has(property) || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        withSpan(
          `${className}.${property}`,
          "client",
          { "rpc.system": "cloudflare.durable_object", "rpc.service": className, "rpc.method": property },
          (span) => {
            // A request that has a `traceparent` field carries this span to the callee, which continues the trace.
            const [first, ...rest] = args;
            const request =
              span && isRecord(first) && "traceparent" in first ? { ...first, traceparent: span.traceparent() } : first;
            // Reflect.apply, not value.apply: on a stub every property, `apply` included, names a remote method.
            return Reflect.apply(
              value as (...callArgs: unknown[]) => unknown,
              target,
              args.length ? [request, ...rest] : [],
            );
          },
        );
    },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The current span's traceparent, for a Durable Object method that continues the trace on its side. */
export function currentTraceparent(): string | undefined {
  return currentSpan()?.traceparent();
}
