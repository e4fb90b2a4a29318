/**
 * The conformance engine: runs the registered rules over a contract and a snapshot (or one document for the
 * constitution) and returns a verdict. Pure: no I/O, no clock; documents are read, never modified.
 */
import { verdictInVersionTerms, type EvolutionNames } from "./verdict/evolution-wording";
import { countMetric, withSpan } from "../lib/telemetry/span";
import type { ConformanceConfig } from "./verdict/config";
import { indexDocument, matchOperations, type DocumentIndex, type OperationPair } from "./normalize/normalize-document";
import { allRules, conformanceRules, constitutionRules } from "./rules/index";
import type { ConformanceContext, ConstitutionContext } from "./rules/rule";
import {
  contentOf,
  matchingStatusKey,
  pairMediaTypes,
  pointerToContent,
  responsesOf,
  schemaOf,
  statusKeys,
  type BodyPair,
  type MediaTypeGap,
} from "./diff/operation-parts";
import type { SchemaChange } from "./diff/schema-change";
import { SchemaDiffer } from "./diff/schema-diff";
import { promisesNothing } from "./diff/untyped-schema";
import { documentWritesRequired } from "./normalize/normalize-schema";
import type { StructuralIdentity } from "./diff/structural-identity";
import { escapeToken, isRecord } from "./normalize/normalize-pointer";
import { keepLayout } from "./keep-layout";
import { mergeVerdicts, RuleReports, ViolationCollector } from "./verdict/verdict";
import type { OpenApiDocument, Verdict } from "./types";

const RULE_ORDER = allRules.map((rule) => rule.id);
const NO_CHANGES: readonly SchemaChange[] = Object.freeze([]);

interface BodyParts {
  bodies: BodyPair[];
  gaps: MediaTypeGap[];
}

function compareResponses(
  pair: OperationPair,
  contract: DocumentIndex,
  snapshot: DocumentIndex,
  differ: SchemaDiffer,
): BodyParts {
  const bodies: BodyPair[] = [];
  const gaps: MediaTypeGap[] = [];
  const snapshotResponses = responsesOf(pair.snapshot);
  const snapshotKeys = statusKeys(pair.snapshot);
  for (const [status, contractResponse] of Object.entries(responsesOf(pair.contract))) {
    if (status.startsWith("x-")) continue;
    const snapshotKey =
      matchingStatusKey(status, snapshotKeys) ??
      (status === "default" && "default" in snapshotResponses ? "default" : undefined);
    if (snapshotKey === undefined) continue; // missing-status-code reports it
    const contractContent = contentOf(contractResponse, contract.resolver);
    const snapshotContent = contentOf(snapshotResponses[snapshotKey], snapshot.resolver);
    const base = `/responses/${escapeToken(status)}`;
    const { pairs, gaps: missing } = pairMediaTypes(contractContent, snapshotContent);
    for (const mediaType of missing) {
      gaps.push({
        pointer: pointerToContent(base, mediaType),
        status,
        contractMediaType: mediaType,
        snapshotMediaTypes: Object.keys(snapshotContent),
      });
    }
    for (const [contractMediaType, snapshotMediaType] of pairs) {
      const contractSchema = schemaOf(contractContent[contractMediaType]);
      const snapshotSchema = schemaOf(snapshotContent[snapshotMediaType]);
      if (contractSchema === undefined) continue;
      const snapshotUntyped = promisesNothing(snapshotSchema, snapshot) && !promisesNothing(contractSchema, contract);
      if (snapshotSchema === undefined && !snapshotUntyped) continue;
      bodies.push({
        pointer: `${pointerToContent(base, contractMediaType)}/schema`,
        status,
        contractMediaType,
        snapshotMediaType,
        changes: snapshotSchema === undefined ? NO_CHANGES : differ.diff(contractSchema, snapshotSchema, "response"),
        snapshotUntyped,
      });
    }
  }
  return { bodies, gaps };
}

function compareRequestBodies(
  pair: OperationPair,
  contract: DocumentIndex,
  snapshot: DocumentIndex,
  differ: SchemaDiffer,
): BodyParts {
  const bodies: BodyPair[] = [];
  const gaps: MediaTypeGap[] = [];
  const contractBody = contract.resolver.deref(pair.contract.operation.requestBody);
  if (!isRecord(contractBody)) return { bodies, gaps };
  const contractContent = contentOf(contractBody, contract.resolver);
  const snapshotContent = contentOf(pair.snapshot.operation.requestBody, snapshot.resolver);
  const { pairs, gaps: missing } = pairMediaTypes(contractContent, snapshotContent);
  for (const mediaType of missing) {
    gaps.push({
      pointer: pointerToContent("/requestBody", mediaType),
      contractMediaType: mediaType,
      snapshotMediaTypes: Object.keys(snapshotContent),
    });
  }
  for (const [contractMediaType, snapshotMediaType] of pairs) {
    const contractSchema = schemaOf(contractContent[contractMediaType]);
    const snapshotSchema = schemaOf(snapshotContent[snapshotMediaType]);
    if (contractSchema === undefined) continue;
    const snapshotUntyped = promisesNothing(snapshotSchema, snapshot) && !promisesNothing(contractSchema, contract);
    if (snapshotSchema === undefined && !snapshotUntyped) continue;
    bodies.push({
      pointer: `${pointerToContent("/requestBody", contractMediaType)}/schema`,
      contractMediaType,
      snapshotMediaType,
      changes: snapshotSchema === undefined ? NO_CHANGES : differ.diff(contractSchema, snapshotSchema, "request"),
      snapshotUntyped,
    });
  }
  return { bodies, gaps };
}

function memoisePerPair<T>(compute: (pair: OperationPair) => T): (pair: OperationPair) => T {
  const cache = new WeakMap<OperationPair, T>();
  return (pair) => {
    let value = cache.get(pair);
    if (value === undefined) {
      value = compute(pair);
      cache.set(pair, value);
    }
    return value;
  };
}

function isEnabled(config: ConformanceConfig, id: string): boolean {
  const severity = config.severities.get(id);
  return severity !== undefined && severity !== "off";
}

/**
 * What a constitution rule is handed. `report` is a method (the same function for every verdict), so a rule's
 * optimized code that inlines it stays valid after the verdict's objects are gone.
 */
class ConstitutionRuleContext implements ConstitutionContext {
  constructor(
    readonly document: DocumentIndex,
    private readonly reports: RuleReports,
  ) {}

  report(location: string, message: string): void {
    this.reports.report(location, message);
  }
}

keepLayout(
  new ConstitutionRuleContext(
    indexDocument({ openapi: "3.0.3", info: { title: "", version: "" }, paths: {} }),
    new RuleReports("", "error", [], [], []),
  ),
);

function runConstitution(index: DocumentIndex, config: ConformanceConfig): Verdict {
  const collector = new ViolationCollector(config);
  for (const rule of constitutionRules) {
    if (!isEnabled(config, rule.id) || !config.constitution.has(rule.id)) continue;
    const reports = collector.forRule(rule.id);
    if (reports) rule.check(new ConstitutionRuleContext(index, reports), config.constitution.get(rule.id));
  }
  return collector.verdict(RULE_ORDER);
}

/**
 * Verdict for an implementation snapshot against a contract: every enabled conformance rule, plus the
 * constitution rules applied to the snapshot (a snapshot upload needs one verdict; do not add checkConstitution
 * of the snapshot on top).
 */
export function checkConformance(
  contract: OpenApiDocument,
  snapshot: OpenApiDocument,
  config: ConformanceConfig,
): Verdict {
  return withSpan("engine.verdict", "internal", { "arbiter.engine.phase": "verdict" }, (span) => {
    const { verdict, snapshotIndex } = runConformanceRules(contract, snapshot, config);
    const merged = mergeVerdicts([verdict, runConstitution(snapshotIndex, config)], RULE_ORDER);
    if (span) {
      const outcome = merged.approved ? "approved" : "rejected";
      span.set({ "arbiter.verdict.outcome": outcome });
      countMetric("arbiter.verdicts", { "arbiter.verdict.outcome": outcome });
    }
    return merged;
  });
}

/**
 * What a new contract version breaks for clients of the previous one: the conformance rules with the previous
 * version as the contract (what clients rely on) and the new one as the implementation (what they will get),
 * with the configured severities, except that an added operation is reported as info (no client of the previous
 * version calls it) and the constitution is left to the contract's own verdict.
 */
export function compareContractVersions(
  previous: OpenApiDocument,
  next: OpenApiDocument,
  config: ConformanceConfig,
  names?: EvolutionNames,
): Verdict {
  const verdict = runConformanceRules(previous, next, evolutionConfig(config), true).verdict;
  return names ? verdictInVersionTerms(verdict, names) : verdict;
}

const evolutionConfigs = new WeakMap<ConformanceConfig, ConformanceConfig>();

function evolutionConfig(config: ConformanceConfig): ConformanceConfig {
  let derived = evolutionConfigs.get(config);
  if (!derived) {
    const severities = new Map(config.severities);
    if (isEnabled(config, "undocumented-operation")) severities.set("undocumented-operation", "info");
    derived = Object.freeze({ ...config, severities, constitution: new Map() });
    evolutionConfigs.set(config, derived);
  }
  return derived;
}

/**
 * The matched pairs whose operations differ beyond annotations. A loop in a module function rather than a filter
 * callback: a callback made per verdict is optimized afresh for every upload, and this loop runs the identity
 * walk over every matched operation (most of a verdict's time).
 */
function differingPairs(
  pairs: readonly OperationPair[],
  identity: StructuralIdentity,
  securityIdentical: boolean,
): OperationPair[] {
  if (!securityIdentical) return [...pairs];
  const differing: OperationPair[] = [];
  for (const pair of pairs) {
    if (
      !identity.operations(pair.contract.operation, pair.snapshot.operation) ||
      !identity.parameterLists(pair.contract.pathParameters, pair.snapshot.pathParameters)
    )
      differing.push(pair);
  }
  return differing;
}

function runConformanceRules(
  contract: OpenApiDocument,
  snapshot: OpenApiDocument,
  config: ConformanceConfig,
  evolution = false,
): { verdict: Verdict; snapshotIndex: DocumentIndex } {
  const contractIndex = indexDocument(contract);
  const snapshotIndex = indexDocument(snapshot);
  const differ = new SchemaDiffer(
    { resolver: contractIndex.resolver, version: contractIndex.version },
    {
      resolver: snapshotIndex.resolver,
      version: snapshotIndex.version,
      writesRequired: documentWritesRequired(snapshotIndex.document),
    },
  );
  const responses = memoisePerPair((pair) => compareResponses(pair, contractIndex, snapshotIndex, differ));
  const requests = memoisePerPair((pair) => compareRequestBodies(pair, contractIndex, snapshotIndex, differ));
  const collector = new ViolationCollector(config);
  let current: RuleReports | null = null;
  const matching = matchOperations(contractIndex, snapshotIndex);
  const identity = differ.identity;
  const securityIdentical =
    identity.securityRequirements(contract.security, snapshot.security) &&
    identity.securitySchemes(
      isRecord(contract.components) ? contract.components.securitySchemes : undefined,
      isRecord(snapshot.components) ? snapshot.components.securitySchemes : undefined,
    );
  const comparedPairs = differingPairs(matching.pairs, identity, securityIdentical);
  const context: ConformanceContext = {
    contract: contractIndex,
    snapshot: snapshotIndex,
    matching,
    comparedPairs,
    frameworkStatusCodes: config.frameworkStatusCodes,
    responseBodies: (pair) => responses(pair).bodies,
    responseMediaTypeGaps: (pair) => responses(pair).gaps,
    requestBodies: (pair) => requests(pair).bodies,
    requestMediaTypeGaps: (pair) => requests(pair).gaps,
    schemaChanges: (contractSchema, snapshotSchema, direction) =>
      differ.diff(contractSchema, snapshotSchema, direction),
    report: (location, message) => current?.report(location, message),
    errorsReported: () => collector.errorCount(),
  };
  for (const rule of conformanceRules) {
    if (!isEnabled(config, rule.id) || (rule.evolutionOnly && !evolution)) continue;
    current = collector.forRule(rule.id);
    rule.check(context);
  }
  return { verdict: collector.verdict(RULE_ORDER), snapshotIndex };
}

/** Verdict of one document (a contract upload or a snapshot) against the constitution alone. */
export function checkConstitution(document: OpenApiDocument, config: ConformanceConfig): Verdict {
  return runConstitution(indexDocument(document), config);
}
