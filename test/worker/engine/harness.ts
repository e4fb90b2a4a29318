/**
 * A small harness for rule tests (graphql-js style): build documents, run ONE rule through the real engine and
 * configuration loader, and assert exactly which violations come out.
 */
import { expect } from "vitest";
import { loadConformanceConfig, type ConformanceConfig } from "../../../src/engine/verdict/config";
import { parseOpenApiDocument } from "../../../src/engine/load/document";
import { checkConformance, checkConstitution } from "../../../src/engine/engine";
import { conformanceRules } from "../../../src/engine/rules/index";
import type { OpenApiDocument, Violation } from "../../../src/engine/types";

/** A minimal valid OpenAPI document; it is parsed and checked like an upload so fixtures stay valid. */
export function openapi(
  paths: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  version = "3.0.3",
): OpenApiDocument {
  const document = { openapi: version, info: { title: "fixture", version: "1.0.0" }, paths, ...extra };
  const parsed = parseOpenApiDocument(JSON.stringify(document));
  if (!parsed.ok) throw new Error(`fixture is not valid OpenAPI: ${JSON.stringify(parsed.problems)}`);
  return parsed.document;
}

/** Responses with one JSON body per status. */
export function responses(bodies: Record<string, unknown>, mediaType = "application/json"): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(bodies).map(([status, schema]) => [
      status,
      schema === null ? { description: status } : { description: status, content: { [mediaType]: { schema } } },
    ]),
  );
}

export function configFor(ruleId: string, constitutionOptions?: Record<string, unknown>): ConformanceConfig {
  const rules = Object.fromEntries(
    conformanceRules.map((rule) => [rule.id, rule.id === ruleId ? rule.defaultSeverity : "off"]),
  );
  return loadConformanceConfig({
    "conformance.json": { rules, exemptions: [], frameworkStatusCodes: ["422", "500"] },
    "constitution.json": { rules: constitutionOptions ? { [ruleId]: constitutionOptions } : {} },
  });
}

function summarise(violations: Violation[]): { location: string; message: string }[] {
  return violations.map(({ location, message }) => ({ location, message }));
}

export function expectValid(ruleId: string, contract: OpenApiDocument, snapshot: OpenApiDocument): void {
  const verdict = checkConformance(contract, snapshot, configFor(ruleId));
  expect(summarise(verdict.violations)).toEqual([]);
  expect(verdict.approved).toBe(true);
}

/** `expected`: location and a fragment of the message, in verdict order. */
export function expectViolations(
  ruleId: string,
  contract: OpenApiDocument,
  snapshot: OpenApiDocument,
  expected: { location: string; message: string }[],
): Violation[] {
  const verdict = checkConformance(contract, snapshot, configFor(ruleId));
  expect(verdict.violations.map((violation) => violation.rule).every((rule) => rule === ruleId)).toBe(true);
  expect(
    verdict.violations.map(({ location, message }) => ({
      location,
      message:
        expected.find((entry) => entry.location === location && message.includes(entry.message))?.message ?? message,
    })),
  ).toEqual(expected);
  expect(verdict.summary).toEqual([
    { rule: ruleId, severity: verdict.violations[0]?.severity, count: expected.length },
  ]);
  return verdict.violations;
}

export function expectConstitutionValid(
  ruleId: string,
  options: Record<string, unknown>,
  document: OpenApiDocument,
): void {
  const verdict = checkConstitution(document, configFor(ruleId, options));
  expect(summarise(verdict.violations)).toEqual([]);
}

export function expectConstitutionViolations(
  ruleId: string,
  options: Record<string, unknown>,
  document: OpenApiDocument,
  expected: { location: string; message: string }[],
): Violation[] {
  const verdict = checkConstitution(document, configFor(ruleId, options));
  expect(verdict.violations.every((violation) => violation.rule === ruleId)).toBe(true);
  expect(
    verdict.violations.map(({ location, message }) => ({
      location,
      message:
        expected.find((entry) => entry.location === location && message.includes(entry.message))?.message ?? message,
    })),
  ).toEqual(expected);
  return verdict.violations;
}
