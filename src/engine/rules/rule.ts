/**
 * What a rule is. Conformance rules compare a contract with an implementation snapshot; constitution rules
 * check one document against the organization's principles (policies/constitution.json). Rules only report:
 * the engine applies configured severities and exemptions and builds the verdict.
 */
import type { z } from "zod";
import type {
  DocumentIndex,
  IndexedOperation,
  OperationMatching,
  OperationPair,
} from "../normalize/normalize-document";
import type { RuleSeverity } from "../types";
import type { BodyPair, MediaTypeGap } from "../diff/operation-parts";
import type { Direction, SchemaChange } from "../diff/schema-change";

export interface RuleMeta {
  /** kebab-case, unique; what policies and violations call the rule. */
  readonly id: string;
  readonly defaultSeverity: RuleSeverity;
  /** One line: what the rule protects. */
  readonly purpose: string;
  /** Link to what the rule enforces (the OpenAPI specification section or breaking-change category). */
  readonly enforces: string;
}

export interface ConformanceContext {
  readonly contract: DocumentIndex;
  readonly snapshot: DocumentIndex;
  readonly matching: OperationMatching;
  /**
   * Matched pairs whose operations differ beyond annotations (descriptions, examples). An operation identical
   * to the contract's cannot break a rule about one pair, so pair rules iterate these: on a large, mostly
   * unchanged snapshot that is most of the saving.
   */
  readonly comparedPairs: readonly OperationPair[];
  /** Status codes frameworks add on their own (policies/conformance.json `frameworkStatusCodes`). */
  readonly frameworkStatusCodes: ReadonlySet<string>;
  /** Response bodies present on both sides, paired by status and media type family, with their differences. */
  responseBodies(pair: OperationPair): readonly BodyPair[];
  /** Contract response media types whose family the implementation does not declare for that status. */
  responseMediaTypeGaps(pair: OperationPair): readonly MediaTypeGap[];
  requestBodies(pair: OperationPair): readonly BodyPair[];
  requestMediaTypeGaps(pair: OperationPair): readonly MediaTypeGap[];
  schemaChanges(contractSchema: unknown, snapshotSchema: unknown, direction: Direction): readonly SchemaChange[];
  /** `location` is "<METHOD> <path>" optionally followed by "#" and a JSON pointer inside the operation. */
  report(location: string, message: string): void;
  /** Violations of severity error the rules before this one reported (counted whether listed or not). */
  errorsReported(): number;
}

export interface ConformanceRule extends RuleMeta {
  readonly kind: "conformance";
  /** Runs only when a contract version is compared with the previous one, never in a snapshot's verdict. */
  readonly evolutionOnly?: true;
  check(context: ConformanceContext): void;
}

export interface ConstitutionContext {
  readonly document: DocumentIndex;
  report(location: string, message: string): void;
}

export interface ConstitutionRule<Options = unknown> extends RuleMeta {
  readonly kind: "constitution";
  /** Validates the rule's entry in policies/constitution.json (besides `severity`). */
  readonly options: z.ZodType<Options>;
  check(context: ConstitutionContext, options: Options): void;
}

export type Rule = ConformanceRule | ConstitutionRule<unknown>;

/** Location of a whole operation, or of a pointer inside it. */
export function locate(operation: IndexedOperation, pointer = ""): string {
  return pointer === ""
    ? operation.label
    : `${operation.label}#${pointer.startsWith("/") ? pointer : pointer.replace(/^#/, "")}`;
}
