/**
 * The conformance configuration: severities and exemptions (policies/conformance.json) and the constitution
 * (policies/constitution.json), validated against the rule registry so a typo in a rule id or an option fails at
 * load with the file and field named, never silently at check time.
 */
import { z } from "zod";
import { PolicyError, policyErrorFromZod } from "../../policy/errors";
import { bundledPolicyFiles, type PolicyFiles } from "../../policy/files";
import { constitutionRules, conformanceRules, rulesById } from "../rules/index";
import { compileOperationPattern, isOperationPattern, type OperationPattern } from "../diff/operation-pattern";
import type { AcceptedBreak } from "./acceptance";
import type { RuleSeverity } from "../types";

export type SeveritySetting = RuleSeverity | "off";
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
  /** A project's accepted breaks in force (acceptance.ts): a matching error becomes "accepted". */
  readonly acceptances?: readonly AcceptedBreak[];
  /** The organization's use of the usage index (usage.ts); absent: a 30-day window, unused breaks stay errors. */
  readonly usage?: UsagePolicy;
}

/**
 * How verdicts use recorded traffic: the evidence window, and whether a breaking change that no recorded exchange
 * exercised in it is a warning instead of an error ("error", the default, keeps every break an error).
 */
export interface UsagePolicy {
  windowDays: number;
  unusedBreaks: "error" | "warning";
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

/**
 * An organization's own conformance policy (its settings in the directory): rule severities, more exemptions,
 * constitution rules with their options, and what a breaking contract version does. It is laid over the platform's
 * policy files: a rule it names takes its severity, its exemptions come after the platform's.
 */
export interface OrganizationConformancePolicy {
  rules?: Readonly<Record<string, string>>;
  exemptions?: ReadonlyArray<{ rule: string; operation: string; reason: string }>;
  constitution?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  breakingChanges?: BreakingChangesPolicy;
  usage?: { windowDays?: number; unusedBreaks?: "error" | "warning" };
}

/** The first problem of an organization's conformance policy, as a field and the fix; undefined when it is usable. */
export function organizationConformanceProblem(
  policy: OrganizationConformancePolicy,
): { field: string; problem: string } | undefined {
  const conformanceIds = new Set(conformanceRules.map((rule) => rule.id));
  const severities = new Set(["error", "warning", "info", "off"]);
  for (const [id, severity] of Object.entries(policy.rules ?? {})) {
    if (!conformanceIds.has(id))
      return {
        field: `rules.${id}`,
        problem: rulesById.has(id)
          ? "it is a constitution rule: set it under constitution"
          : `unknown conformance rule "${id}"; known rules: ${[...conformanceIds].join(", ")}`,
      };
    if (!severities.has(severity)) return { field: `rules.${id}`, problem: "expected error, warning, info or off" };
  }
  for (const [index, exemption] of (policy.exemptions ?? []).entries()) {
    if (exemption.rule !== "*" && !rulesById.has(exemption.rule))
      return { field: `exemptions.${index}.rule`, problem: `unknown rule "${exemption.rule}" (use a rule id or "*")` };
    if (!isOperationPattern(exemption.operation))
      return {
        field: `exemptions.${index}.operation`,
        problem: 'expected an operation pattern such as "GET /health" or "* /internal/**"',
      };
    if (exemption.reason.trim().length < 3)
      return { field: `exemptions.${index}.reason`, problem: "say why the exemption exists" };
  }
  const constitutionById = new Map(constitutionRules.map((rule) => [rule.id, rule]));
  for (const [id, entry] of Object.entries(policy.constitution ?? {})) {
    const rule = constitutionById.get(id);
    if (!rule)
      return {
        field: `constitution.${id}`,
        problem: `unknown constitution rule "${id}"; known rules: ${[...constitutionById.keys()].join(", ")}`,
      };
    const { severity, ...options } = entry;
    if (severity !== undefined && !severities.has(String(severity)))
      return { field: `constitution.${id}.severity`, problem: "expected error, warning, info or off" };
    const parsed = rule.options.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        field: ["constitution", id, ...(issue?.path ?? []).map(String)].join("."),
        problem: issue?.message ?? "invalid",
      };
    }
  }
  return undefined;
}

/** The platform's configuration with one organization's policy laid over it (checked with organizationConformanceProblem). */
export function withOrganizationConformance(
  config: ConformanceConfig,
  organizationId: string,
  policy: OrganizationConformancePolicy | undefined,
): ConformanceConfig {
  if (!policy) return config;
  const severities = new Map(config.severities);
  for (const [id, severity] of Object.entries(policy.rules ?? {})) severities.set(id, severity as SeveritySetting);
  const constitution = new Map(config.constitution);
  const constitutionById = new Map(constitutionRules.map((rule) => [rule.id, rule]));
  for (const [id, entry] of Object.entries(policy.constitution ?? {})) {
    const rule = constitutionById.get(id);
    if (!rule) continue;
    const { severity, ...options } = entry;
    const parsed = rule.options.safeParse(options);
    if (!parsed.success) continue;
    severities.set(id, (severity as SeveritySetting | undefined) ?? rule.defaultSeverity);
    constitution.set(id, parsed.data);
  }
  const exemptions = [
    ...config.exemptions,
    ...(policy.exemptions ?? []).map((exemption) => ({
      rule: exemption.rule,
      operation: compileOperationPattern(exemption.operation),
      reason: exemption.reason,
    })),
  ];
  const byOrganization = new Map(config.breakingChangesByOrganization);
  if (policy.breakingChanges) byOrganization.set(organizationId, policy.breakingChanges);
  const usage: UsagePolicy | undefined = policy.usage
    ? { windowDays: policy.usage.windowDays ?? 30, unusedBreaks: policy.usage.unusedBreaks ?? "error" }
    : config.usage;
  return Object.freeze({
    ...config,
    ...(usage ? { usage } : {}),
    severities,
    constitution,
    exemptions: Object.freeze(exemptions),
    breakingChangesByOrganization: byOrganization,
  });
}
