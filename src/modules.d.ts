// Text modules bundled by the rules in wrangler.toml (policies/**/*.graphql).
declare module "*.graphql" {
  const text: string;
  export default text;
}

// AsyncLocalStorage from nodejs_compat (workerd implements it); only the part src/telemetry/span.ts uses.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
