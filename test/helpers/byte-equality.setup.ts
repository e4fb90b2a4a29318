// Setup file of the worker suite (vitest.config.ts): `toEqual` compares two Uint8Arrays of one type byte by byte in
// a plain loop. vitest's own equality walks a typed array as an object, one index at a time through its generic
// comparison, which took seconds for the megabyte documents the storage tests download and compare. The verdict is
// the same (equal when the lengths and every byte are); other values keep vitest's equality.
import { expect } from "vitest";

function equalByteArrays(a: unknown, b: unknown): boolean | undefined {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array)) return undefined;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return undefined;
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

// Setup files run again before every test file, and the suite's files share one isolate (`isolate: false`), where
// vitest keeps every tester ever added: each run would add one more, and every comparison calls them all at every
// level of the values it walks. So the tester is added once per isolate.
const ADDED = Symbol.for("arbiter.test.byteEquality");
const isolate = globalThis as { [ADDED]?: true };
if (!isolate[ADDED]) {
  expect.addEqualityTesters([equalByteArrays]);
  isolate[ADDED] = true;
}
