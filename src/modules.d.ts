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

// Buffer, isUtf8 and isAscii from nodejs_compat (workerd implements them); only the part src/lib/utf8.ts uses.
declare module "node:buffer" {
  export class Buffer extends Uint8Array {
    static from(buffer: ArrayBufferLike, byteOffset?: number, length?: number): Buffer;
    toString(encoding?: "utf8" | "latin1", start?: number, end?: number): string;
    subarray(start?: number, end?: number): Buffer;
  }
  export function isUtf8(input: ArrayBufferView | ArrayBuffer): boolean;
  export function isAscii(input: ArrayBufferView | ArrayBuffer): boolean;
}
