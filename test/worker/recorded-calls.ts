/**
 * A Durable Object namespace whose stubs record one RPC method's arguments before calling it: what a test reads to
 * see how a service calls a store (how many calls, asking for how much), with the real objects answering.
 */
export function recordingCalls<T extends DurableObjectNamespace>(
  namespace: T,
  method: string,
): { namespace: T; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const recorded = new Proxy<DurableObjectNamespace>(namespace, {
    get: (target, property) =>
      property === "get"
        ? (id: DurableObjectId) =>
            new Proxy(target.get(id), {
              get: (stub, name) => {
                const value = Reflect.get(stub, name);
                if (name !== method || typeof value !== "function") return value;
                return (...args: unknown[]) => {
                  calls.push(args);
                  return Reflect.apply(value, stub, args);
                };
              },
            })
        : (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target),
  });
  return { namespace: recorded as T, calls };
}
