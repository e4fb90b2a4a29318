// The byte-array equality the worker suite registers (test/helpers/byte-equality.setup.ts) gives toEqual's verdict.
import { describe, expect, it } from "vitest";

describe("toEqual on byte arrays", () => {
  const bytes = (length: number, at = -1) => Uint8Array.from({ length }, (_, i) => (i === at ? 255 : i % 251));

  it("holds for the same bytes, and fails on one byte changed, a length or a type", () => {
    expect(bytes(1_000_000)).toEqual(bytes(1_000_000));
    expect(bytes(1_000_000)).not.toEqual(bytes(1_000_000, 999_999));
    expect(bytes(1_000_000)).not.toEqual(bytes(1_000_001));
    expect(new Uint8Array(0)).toEqual(new Uint8Array(0));
    expect(Uint8Array.from([1, 2])).not.toEqual(Uint8ClampedArray.from([1, 2]));
    expect({ document: bytes(10) }).not.toEqual({ document: bytes(10, 4) });
  });
});
