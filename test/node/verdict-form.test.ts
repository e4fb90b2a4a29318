/**
 * A contract read back from its stored verdict form (src/contracts/store/verdict-form.ts), or from its comparison form
 * (the same without the annotations no rule reads, engine/strip-annotations.ts), gives verdicts byte for byte
 * equal to the contract read back from its uploaded bytes (parsed and validated again, as every upload did
 * before forms existed): on GitHub's description against a mutated copy, on the consecutive GHES pairs in both
 * directions (a snapshot verdict and a contract-evolution comparison), with the bundled policies. Runs in Node
 * because the documents are too large to bundle into the workerd test pool.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { getConformanceConfig } from "../../src/engine/verdict/config";
import { checkConformance, compareContractVersions } from "../../src/engine/engine";
import { parseDocumentBytes } from "../../src/engine/load/parse-upload";
import { decodeVerdictForm, encodeComparisonForm, encodeVerdictForm } from "../../src/contracts/store/verdict-form";
import type { OpenApiDocument } from "../../src/engine/types";
import { githubText, mutatedCopy } from "../../bench/github-fixture";

const require = createRequire(import.meta.url);
const config = getConformanceConfig();
const bytesOf = (name: string) =>
  new Uint8Array(readFileSync(require.resolve(`@octokit/openapi/generated/${name}.json`)));

/** As a snapshot upload receives it: validated, unknown fields refused. */
function uploaded(bytes: Uint8Array): OpenApiDocument {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems.slice(0, 3)));
  return parsed.document;
}

/** The stored contract read back from its bytes, as before (unknown fields ignored). */
function fromBytes(bytes: Uint8Array): OpenApiDocument {
  const parsed = parseDocumentBytes(bytes, { unknownFields: "ignore" });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems.slice(0, 3)));
  return parsed.document;
}

/** The stored contract read back from the verdict form its upload stored. */
function fromForm(bytes: Uint8Array): OpenApiDocument {
  const form = encodeVerdictForm(uploaded(bytes), "json");
  expect(form).not.toBeNull();
  expect(form!.every((byte) => byte < 0x80)).toBe(true);
  const document = decodeVerdictForm(form!);
  expect(document).not.toBeNull();
  return document!;
}

/** The stored contract read back from its comparison form (annotations stripped), as a snapshot upload reads it. */
function fromComparisonForm(bytes: Uint8Array): OpenApiDocument {
  const whole = encodeVerdictForm(uploaded(bytes), "json")!;
  const form = encodeComparisonForm(uploaded(bytes), "json");
  expect(form).not.toBeNull();
  expect(form!.every((byte) => byte < 0x80)).toBe(true);
  // Well under the whole form: the point of it.
  expect(form!.byteLength).toBeLessThan(0.7 * whole.byteLength);
  const document = decodeVerdictForm(form!);
  expect(document).not.toBeNull();
  return document!;
}

function expectSameVerdicts(contract: Uint8Array, snapshot: Uint8Array): void {
  const before = JSON.stringify(checkConformance(fromBytes(contract), uploaded(snapshot), config));
  expect(JSON.stringify(checkConformance(fromForm(contract), uploaded(snapshot), config))).toBe(before);
  expect(JSON.stringify(checkConformance(fromComparisonForm(contract), uploaded(snapshot), config))).toBe(before);
  const evolutionBefore = JSON.stringify(compareContractVersions(fromBytes(contract), uploaded(snapshot), config));
  expect(JSON.stringify(compareContractVersions(fromForm(contract), uploaded(snapshot), config))).toBe(evolutionBefore);
  expect(JSON.stringify(compareContractVersions(fromComparisonForm(contract), uploaded(snapshot), config))).toBe(
    evolutionBefore,
  );
}

describe("verdicts from a stored verdict form", () => {
  it("GitHub's description against a mutated copy: the same verdict and comparison, byte for byte", () => {
    const text = githubText();
    const contract = new TextEncoder().encode(text);
    const snapshot = new TextEncoder().encode(JSON.stringify(mutatedCopy(text), null, 2));
    expectSameVerdicts(contract, snapshot);
    // The 140 non-ASCII bytes of GitHub's text survive the \u escapes.
    expect(JSON.stringify(fromForm(contract))).toBe(JSON.stringify(JSON.parse(text)));
  }, 120_000);

  for (const [older, newer] of [
    ["ghes-3.17", "ghes-3.18"],
    ["ghes-3.19", "ghes-3.18"],
  ] as const) {
    it(`${older} as the contract, ${newer} as the snapshot: the same verdict and comparison, byte for byte`, () => {
      expectSameVerdicts(bytesOf(older), bytesOf(newer));
    }, 120_000);
  }
});
