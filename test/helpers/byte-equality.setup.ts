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

expect.addEqualityTesters([equalByteArrays]);
