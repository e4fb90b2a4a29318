/**
 * The conformance configuration: severities and exemptions (policies/conformance.json) and the constitution
 * (policies/constitution.json), validated against the rule registry so a typo in a rule id or an option fails at
 * load with the file and field named, never silently at check time.
 */
import { z } from "zod";
import { PolicyError, policyErrorFromZod } from "../policy/errors";
import { bundledPolicyFiles, type PolicyFiles } from "../policy/files";
import { constitutionRules, conformanceRules, rulesById } from "./rules/index";
import { compileOperationPattern, isOperationPattern, type OperationPattern } from "./rules/support/operation-pattern";
import type { Severity } from "./types";

export type SeveritySetting = Severity | "off";
export type BreakingChangesPolicy = "warn" | "refuse";

export interface Exemption {
  /** A rule id, or "*" for every rule. */
  rule: string;
  operation: OperationPattern;
  reason: string;
}

export interface ConformanceConfig {
  /** Effective severity of every rule; constitution rules absent from constitution.json are "off". */
  readonly severities: ReadonlyMap<string, SeveritySetting>;
  readonly exemptions: readonly Exemption[];
  readonly frameworkStatusCodes: ReadonlySet<string>;
  /** Validated options of each enabled constitution rule. */
  readonly constitution: ReadonlyMap<string, unknown>;
  /** Whether a contract version that breaks clients of the active one becomes active on upload (see breakingChangesPolicy). */
  readonly breakingChanges: BreakingChangesPolicy;
  readonly breakingChangesByOrganization: ReadonlyMap<string, BreakingChangesPolicy>;
}

const severitySetting = z.enum(["error", "warning", "info", "off"]);

const conformanceFileSchema = z.object({
  $comment: z.string().optional(),
  rules: z.record(z.string(), severitySetting).default({}),
  exemptions: z
    .array(
      z.object({
        rule: z.string().min(1),
        operation: z
          .string()
          .refine(isOperationPattern, 'expected an operation pattern such as "GET /health" or "* /internal/**"'),
        reason: z.string().min(3, "say why the exemption exists"),
      }),
    )
    .default([]),
  frameworkStatusCodes: z.array(z.string().regex(/^[1-5](\d\d|XX)$/i, "a status code such as 422 or 5XX")).default([]),
  contractEvolution: z
    .object({
      $comment: z.string().optional(),
      breakingChanges: z.enum(["warn", "refuse"]).default("warn"),
      organizations: z.record(z.string(), z.enum(["warn", "refuse"])).default({}),
    })
    .strict()
    .default({ breakingChanges: "warn", organizations: {} }),
});

const constitutionFileSchema = z.object({
  $comment: z.string().optional(),
  rules: z.record(z.string(), z.looseObject({ severity: severitySetting.optional() })).default({}),
});

function parseFile<S extends z.ZodType>(files: PolicyFiles, file: string, schema: S): z.infer<S> {
  if (!(file in files)) throw new PolicyError(file, "", "file is missing from the bundle");
  const result = schema.safeParse(files[file]);
  if (!result.success) throw policyErrorFromZod(file, result.error);
  return result.data;
}

export function loadConformanceConfig(files: PolicyFiles): ConformanceConfig {
  const conformance = parseFile(files, "conformance.json", conformanceFileSchema);
  const constitution = parseFile(files, "constitution.json", constitutionFileSchema);
  const severities = new Map<string, SeveritySetting>();
  for (const rule of conformanceRules) severities.set(rule.id, rule.defaultSeverity);
  for (const rule of constitutionRules) severities.set(rule.id, "off");

  const conformanceIds = new Set(conformanceRules.map((rule) => rule.id));
  for (const [id, severity] of Object.entries(conformance.rules)) {
    if (!conformanceIds.has(id)) {
      const hint = rulesById.has(id)
        ? "it is a constitution rule: configure it in constitution.json"
        : `known rules: ${[...conformanceIds].join(", ")}`;
      throw new PolicyError("conformance.json", `rules.${id}`, `unknown conformance rule "${id}"; ${hint}`);
    }
    severities.set(id, severity);
  }

  const options = new Map<string, unknown>();
  const constitutionById = new Map(constitutionRules.map((rule) => [rule.id, rule]));
  for (const [id, entry] of Object.entries(constitution.rules)) {
    const rule = constitutionById.get(id);
    if (!rule) {
      throw new PolicyError(
        "constitution.json",
        `rules.${id}`,
        `unknown constitution rule "${id}"; known rules: ${[...constitutionById.keys()].join(", ")}`,
      );
    }
    const { severity, ...ruleOptions } = entry;
    const parsed = rule.options.safeParse(ruleOptions);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = ["rules", id, ...(issue?.path ?? []).map(String)].join(".");
      throw new PolicyError("constitution.json", field, issue?.message ?? "invalid");
    }
    severities.set(id, severity ?? rule.defaultSeverity);
    options.set(id, parsed.data);
  }

  const exemptions = conformance.exemptions.map((exemption, index) => {
    if (exemption.rule !== "*" && !rulesById.has(exemption.rule)) {
      throw new PolicyError(
        "conformance.json",
        `exemptions.${index}.rule`,
        `unknown rule "${exemption.rule}" (use a rule id or "*")`,
      );
    }
    return { rule: exemption.rule, operation: compileOperationPattern(exemption.operation), reason: exemption.reason };
  });

  return Object.freeze({
    severities,
    exemptions: Object.freeze(exemptions),
    frameworkStatusCodes: new Set(conformance.frameworkStatusCodes.map((code) => code.toUpperCase())),
    constitution: options,
    breakingChanges: conformance.contractEvolution.breakingChanges,
    breakingChangesByOrganization: new Map(Object.entries(conformance.contractEvolution.organizations)),
  });
}

/** What an organization's policy does with a contract version that breaks clients of the active one. */
export function breakingChangesPolicy(config: ConformanceConfig, organizationId: string): BreakingChangesPolicy {
  return config.breakingChangesByOrganization.get(organizationId) ?? config.breakingChanges;
}

let cached: ConformanceConfig | undefined;

/** The configuration from the bundled policy files, validated on first use. */
export function getConformanceConfig(): ConformanceConfig {
  cached ??= loadConformanceConfig(bundledPolicyFiles);
  return cached;
}
