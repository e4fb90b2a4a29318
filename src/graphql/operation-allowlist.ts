/**
 * Loads the order-data layer from policy files: the schema, every operation under graphql/operations with
 * the policy beside it, the limits, the input rules, the upstreams and the data policy. Every operation is
 * parsed, validated against the schema and checked against the limits; tools are derived from what passes.
 * Any problem throws GraphqlPolicyError naming the file, the line (for .graphql files) and the rule.
 *
 * Operation files: `graphql/operations/<OperationName>.graphql` holds exactly one named operation (plus the
 * fragments it uses); its description string becomes the tool description, its variable descriptions the
 * argument descriptions. `graphql/operations/<OperationName>.json` holds its policy (operationPolicySchema).
 */
import {
  GraphQLError,
  Kind,
  Source,
  buildASTSchema,
  getLocation,
  isEnumType,
  parse,
  print,
  validate,
  validateSchema,
  valueFromAST,
  typeFromAST,
  visit,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import type { z } from "zod";
import type { PolicyFileMap as PolicyFiles, ToolHints as ToolAnnotations } from "./types";
import { GraphqlPolicyError } from "./errors";
import { createEnumNormaliser, type EnumNormaliser } from "./input-normalise";
import { argumentDescriptions, deriveInputSchema, InputDerivationProblem } from "./input-schema";
import { checkOperationLimits } from "./limits";
import { sensitiveFieldsIn } from "./masking";
import { deriveOutputSchema, type MaskingRules } from "./output-schema";
import {
  dataPolicyFileSchema,
  gatewayFileSchema,
  inputsFileSchema,
  operationPolicySchema,
  upstreamsFileSchema,
  type DataPolicyFile,
  type GatewayFile,
  type InputsFile,
  type OperationPolicy,
  type UpstreamsFile,
} from "./policy-schemas";
import { selectionTree, type SelectionTree } from "./selection";
import { allowedSubsetSdl } from "./subset-schema";

export const GRAPHQL_POLICY_FILES = {
  schema: "graphql/schema.graphql",
  gateway: "graphql/gateway.json",
  inputs: "graphql/inputs.json",
  upstreams: "graphql/upstreams.json",
  dataPolicy: "data-policy.json",
} as const;
export const OPERATIONS_DIR = "graphql/operations/";

export interface GraphqlOperation {
  readonly name: string;
  /** Paths relative to policies/. */
  readonly file: string;
  readonly policyFile: string;
  readonly kind: "query" | "mutation";
  /** Disabled operations are validated like the others but offer no tool. */
  readonly enabled: boolean;
  readonly tool: string;
  readonly title: string;
  readonly description: string;
  readonly scopes: readonly string[];
  readonly timeoutMs: number;
  readonly cacheTtlSeconds: number;
  readonly annotations: ToolAnnotations;
  /** The operation and its fragments, as written (descriptions included). */
  readonly document: DocumentNode;
  /** What is sent upstream: the same document printed without descriptions (older servers cannot parse them). */
  readonly upstreamQuery: string;
  readonly inputSchema: z.ZodObject;
  readonly outputSchema: z.ZodObject;
  readonly selection: SelectionTree;
  readonly sensitiveFields: ReadonlyArray<{ coordinate: string; unmaskScope: string }>;
  readonly estimatedCost: number;
  readonly policy: OperationPolicy;
}

export interface GraphqlCatalog {
  readonly schema: GraphQLSchema;
  /** SDL of only what the enabled operations touch. */
  readonly subsetSdl: string;
  /** Every operation file, enabled or not, by operation name. */
  readonly operations: readonly GraphqlOperation[];
  readonly masking: MaskingRules;
  readonly dataPolicy: DataPolicyFile;
  readonly gateway: GatewayFile;
  readonly inputs: InputsFile;
  readonly upstreams: UpstreamsFile;
  /** Enum normalisers by enum type name. */
  readonly normalisers: ReadonlyMap<string, EnumNormaliser>;
}

export function enabledOperations(catalog: GraphqlCatalog): GraphqlOperation[] {
  return catalog.operations.filter((operation) => operation.enabled);
}

function lineOf(node: ASTNode | undefined): number | undefined {
  return node?.loc ? getLocation(node.loc.source, node.loc.start).line : undefined;
}

function parseJson<S extends z.ZodType>(files: PolicyFiles, file: string, schema: S): z.infer<S> {
  if (!(file in files))
    throw new GraphqlPolicyError(
      file,
      undefined,
      "file-missing",
      "the file is missing from the bundle (src/policy/files.ts)",
    );
  const result = schema.safeParse(files[file]);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.map(String).join(".") || "(file)";
    throw new GraphqlPolicyError(file, undefined, "policy-invalid", `${field}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}

function textOf(files: PolicyFiles, file: string): string {
  const value = files[file];
  if (typeof value !== "string")
    throw new GraphqlPolicyError(
      file,
      undefined,
      "file-missing",
      "the file is missing from the bundle (src/policy/files.ts) or is not text",
    );
  return value;
}

function parseGraphql(file: string, text: string): DocumentNode {
  try {
    return parse(new Source(text, file));
  } catch (error) {
    if (error instanceof GraphQLError)
      throw new GraphqlPolicyError(file, error.locations?.[0]?.line, "graphql-syntax", error.message);
    throw error;
  }
}

function loadSchema(files: PolicyFiles): { schema: GraphQLSchema; document: DocumentNode } {
  const file = GRAPHQL_POLICY_FILES.schema;
  const document = parseGraphql(file, textOf(files, file));
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(document);
  } catch (error) {
    if (error instanceof GraphQLError)
      throw new GraphqlPolicyError(file, error.locations?.[0]?.line, "schema-invalid", error.message);
    throw error;
  }
  const problem = validateSchema(schema)[0];
  if (problem) throw new GraphqlPolicyError(file, problem.locations?.[0]?.line, "schema-invalid", problem.message);
  return { schema, document };
}

function knownScopes(files: PolicyFiles): Set<string> | undefined {
  const scopes = (files["scopes.json"] as { scopes?: Record<string, unknown> } | undefined)?.scopes;
  return scopes && typeof scopes === "object" ? new Set(Object.keys(scopes)) : undefined;
}

function knownOrganizations(files: PolicyFiles): Set<string> | undefined {
  const organizations = (files["organizations.json"] as { organizations?: Record<string, unknown> } | undefined)
    ?.organizations;
  return organizations && typeof organizations === "object" ? new Set(Object.keys(organizations)) : undefined;
}

function loadMasking(
  files: PolicyFiles,
  schema: GraphQLSchema,
  scopes: Set<string> | undefined,
): { dataPolicy: DataPolicyFile; masking: MaskingRules } {
  const file = GRAPHQL_POLICY_FILES.dataPolicy;
  const dataPolicy = parseJson(files, file, dataPolicyFileSchema);
  const sensitive = new Map<string, string>();
  for (const [coordinate, rule] of Object.entries(dataPolicy.sensitiveFields)) {
    const [typeName, fieldName] = coordinate.split(".") as [string, string];
    const type = schema.getType(typeName);
    if (!type || !("getFields" in type) || !type.getFields()[fieldName]) {
      throw new GraphqlPolicyError(
        file,
        undefined,
        "unknown-field",
        `sensitiveFields.${coordinate}: the schema has no field ${coordinate}`,
      );
    }
    if (scopes && !scopes.has(rule.unmaskScope)) {
      throw new GraphqlPolicyError(
        file,
        undefined,
        "unknown-scope",
        `sensitiveFields.${coordinate}.unmaskScope: "${rule.unmaskScope}" is not in policies/scopes.json`,
      );
    }
    sensitive.set(coordinate, rule.unmaskScope);
  }
  return { dataPolicy, masking: { mask: dataPolicy.mask, sensitive } };
}

function loadInputs(
  files: PolicyFiles,
  schema: GraphQLSchema,
): { inputs: InputsFile; normalisers: Map<string, EnumNormaliser> } {
  const file = GRAPHQL_POLICY_FILES.inputs;
  const inputs = parseJson(files, file, inputsFileSchema);
  const normalisers = new Map<string, EnumNormaliser>();
  for (const [typeName, synonyms] of Object.entries(inputs.enumSynonyms)) {
    const type = schema.getType(typeName);
    if (!isEnumType(type)) {
      throw new GraphqlPolicyError(
        file,
        undefined,
        "unknown-enum",
        `enumSynonyms.${typeName}: the schema has no enum ${typeName}`,
      );
    }
    const normaliser = createEnumNormaliser(type, synonyms);
    if (typeof normaliser === "string")
      throw new GraphqlPolicyError(file, undefined, "synonym-invalid", `enumSynonyms.${typeName}: ${normaliser}`);
    normalisers.set(typeName, normaliser);
  }
  for (const [name, pattern] of Object.entries(inputs.patterns)) {
    try {
      new RegExp(pattern.regex);
    } catch {
      throw new GraphqlPolicyError(
        file,
        undefined,
        "pattern-invalid",
        `patterns.${name}.regex is not a valid regular expression`,
      );
    }
    if (!new RegExp(pattern.regex).test(pattern.example)) {
      throw new GraphqlPolicyError(
        file,
        undefined,
        "pattern-invalid",
        `patterns.${name}.example "${pattern.example}" does not match its own regex`,
      );
    }
  }
  return { inputs, normalisers };
}

function loadUpstreams(files: PolicyFiles): UpstreamsFile {
  const file = GRAPHQL_POLICY_FILES.upstreams;
  const upstreams = parseJson(files, file, upstreamsFileSchema);
  const organizations = knownOrganizations(files);
  for (const org of Object.keys(upstreams.organizations)) {
    if (organizations && !organizations.has(org)) {
      throw new GraphqlPolicyError(
        file,
        undefined,
        "unknown-organization",
        `organizations.${org}: no such organization in policies/organizations.json`,
      );
    }
  }
  return upstreams;
}

/** Removes descriptions (operation, variable and fragment descriptions are newer syntax than many servers parse). */
function withoutDescriptions(document: DocumentNode): DocumentNode {
  return visit(document, {
    enter(node) {
      if ("description" in node && node.description) return { ...node, description: undefined };
      return undefined;
    },
  });
}

interface LoadContext {
  schema: GraphQLSchema;
  gateway: GatewayFile;
  inputs: InputsFile;
  normalisers: ReadonlyMap<string, EnumNormaliser>;
  masking: MaskingRules;
  scopes: Set<string> | undefined;
}

function loadOperation(files: PolicyFiles, file: string, context: LoadContext): GraphqlOperation {
  const stem = file.slice(OPERATIONS_DIR.length, -".graphql".length);
  const policyFile = `${OPERATIONS_DIR}${stem}.json`;
  const document = parseGraphql(file, textOf(files, file));
  const fail = (node: ASTNode | undefined, rule: string, problem: string): never => {
    throw new GraphqlPolicyError(file, lineOf(node), rule, problem);
  };

  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const other = document.definitions.find(
    (d) => d.kind !== Kind.OPERATION_DEFINITION && d.kind !== Kind.FRAGMENT_DEFINITION,
  );
  if (other) fail(other, "single-operation", "an operation file holds one operation and its fragments, nothing else");
  if (operations.length !== 1)
    fail(operations[1] ?? document, "single-operation", `expected exactly one operation, found ${operations.length}`);
  const operation = operations[0]!;
  const name = operation.name?.value;
  if (!name) fail(operation, "operation-name", `the operation needs a name, and it must be "${stem}" (the file name)`);
  if (name !== stem)
    fail(operation.name, "operation-name", `operation "${name}" must be named like its file ("${stem}")`);
  if (operation.operation === "subscription")
    fail(operation, "subscription-not-allowed", "subscriptions are never allowed");

  if (!(policyFile in files))
    fail(
      operation,
      "policy-missing",
      `add its policy in policies/${policyFile} (tool, title, scopes...) and list it in src/policy/files.ts`,
    );
  const policy = parseJson(files, policyFile, operationPolicySchema);
  const isMutation = operation.operation === "mutation";
  if (isMutation && !policy.mutation) {
    fail(
      operation,
      "mutation-not-allowed",
      `"${name}" is a mutation; mutations are refused unless its policy (policies/${policyFile}) declares "mutation": true`,
    );
  }
  if (!isMutation && policy.mutation)
    fail(
      operation,
      "policy-kind-mismatch",
      `policies/${policyFile} declares "mutation": true but "${name}" is a query`,
    );
  if (isMutation && policy.cacheTtlSeconds > 0) {
    throw new GraphqlPolicyError(
      policyFile,
      undefined,
      "mutation-not-cacheable",
      `cacheTtlSeconds: a mutation's answer is never cached; remove it`,
    );
  }
  const description = operation.description?.value.trim();
  if (!description)
    fail(
      operation,
      "description-missing",
      `put the tool description in a string before "${operation.operation} ${name}" (what it does, when to use it)`,
    );

  const validationError = validate(context.schema, document)[0];
  if (validationError)
    throw new GraphqlPolicyError(
      file,
      validationError.locations?.[0]?.line,
      "graphql-validation",
      validationError.message,
    );

  policy.scopes.forEach((scope, index) => {
    if (context.scopes && !context.scopes.has(scope)) {
      throw new GraphqlPolicyError(
        policyFile,
        undefined,
        "unknown-scope",
        `scopes.${index}: "${scope}" is not in policies/scopes.json`,
      );
    }
  });
  const declared = new Map((operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, v] as const));
  for (const variable of Object.keys(policy.variables)) {
    if (!declared.has(variable)) {
      throw new GraphqlPolicyError(
        policyFile,
        undefined,
        "unknown-variable-policy",
        `variables.${variable}: ${name} declares no variable $${variable} (it declares ${[...declared.keys()].map((v) => `$${v}`).join(", ") || "none"})`,
      );
    }
  }

  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f] as const),
  );
  const variableMaxima = new Map<string, number>();
  for (const [variable, definition] of declared) {
    const declaredMaximum = policy.variables[variable]?.maximum;
    const type = typeFromAST(context.schema, definition.type) as GraphQLInputType | undefined;
    const fallback = definition.defaultValue && type ? valueFromAST(definition.defaultValue, type) : undefined;
    const maximum = declaredMaximum ?? (typeof fallback === "number" ? fallback : undefined);
    if (maximum !== undefined) variableMaxima.set(variable, maximum);
  }
  const rootType = context.schema.getRootType(operation.operation)!;
  const { violations, estimatedCost } = checkOperationLimits(
    context.schema,
    operation,
    fragments,
    rootType,
    context.gateway.limits,
    variableMaxima,
  );
  const violation = violations[0];
  if (violation)
    fail(violation.node, violation.rule, `${violation.problem} (limits in policies/${GRAPHQL_POLICY_FILES.gateway})`);

  let inputSchema: z.ZodObject;
  try {
    inputSchema = deriveInputSchema(operation, policy.variables, argumentDescriptions(context.schema, document), {
      schema: context.schema,
      normalisers: context.normalisers,
      patterns: context.inputs.patterns,
    });
  } catch (error) {
    if (error instanceof InputDerivationProblem) fail(error.variable, error.rule, error.message);
    throw error;
  }
  policy.examples.forEach((example, index) => {
    const parsed = inputSchema.safeParse(example.arguments);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GraphqlPolicyError(
        policyFile,
        undefined,
        "example-invalid",
        `examples.${index}.arguments: ${issue?.path.map(String).join(".") || "(arguments)"}: ${issue?.message ?? "invalid"}`,
      );
    }
  });
  const selection = selectionTree(context.schema, rootType, operation.selectionSet, fragments);
  const enabled = policy.enabled ?? !isMutation;

  return Object.freeze({
    name: name!,
    file,
    policyFile,
    kind: isMutation ? "mutation" : "query",
    enabled,
    tool: policy.tool,
    title: policy.title,
    description: description!,
    scopes: Object.freeze([...policy.scopes]),
    timeoutMs: policy.timeoutMs ?? context.gateway.defaultTimeoutMs,
    cacheTtlSeconds: policy.cacheTtlSeconds,
    annotations: isMutation
      ? { readOnlyHint: false, destructiveHint: true, idempotentHint: policy.idempotent ?? false, openWorldHint: false }
      : { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    document,
    upstreamQuery: print(withoutDescriptions(document)),
    inputSchema,
    outputSchema: deriveOutputSchema(selection, context.masking),
    selection,
    sensitiveFields: sensitiveFieldsIn(selection, context.masking),
    estimatedCost,
    policy,
  } satisfies GraphqlOperation);
}

/** Loads and validates everything; throws GraphqlPolicyError (file, line, rule) on the first problem. */
export function loadGraphqlCatalog(files: PolicyFiles): GraphqlCatalog {
  const { schema, document: schemaDocument } = loadSchema(files);
  const scopes = knownScopes(files);
  const gateway = parseJson(files, GRAPHQL_POLICY_FILES.gateway, gatewayFileSchema);
  const { dataPolicy, masking } = loadMasking(files, schema, scopes);
  const { inputs, normalisers } = loadInputs(files, schema);
  const upstreams = loadUpstreams(files);

  const operationFiles = Object.keys(files)
    .filter((path) => path.startsWith(OPERATIONS_DIR) && path.endsWith(".graphql"))
    .sort();
  for (const path of Object.keys(files)) {
    if (path.startsWith(OPERATIONS_DIR) && path.endsWith(".json") && !(path.replace(/\.json$/, ".graphql") in files)) {
      throw new GraphqlPolicyError(
        path,
        undefined,
        "operation-missing",
        `policy for an operation that does not exist: add ${path.replace(/\.json$/, ".graphql")} or remove this file`,
      );
    }
  }
  const context: LoadContext = { schema, gateway, inputs, normalisers, masking, scopes };
  const operations = operationFiles.map((file) => loadOperation(files, file, context));

  const tools = new Map<string, string>();
  for (const operation of operations) {
    const other = tools.get(operation.tool);
    if (other)
      throw new GraphqlPolicyError(
        operation.policyFile,
        undefined,
        "duplicate-tool",
        `tool "${operation.tool}" is already the tool of ${other}`,
      );
    tools.set(operation.tool, operation.name);
  }

  const subsetSdl = allowedSubsetSdl(
    schema,
    schemaDocument,
    operations.filter((o) => o.enabled).map((o) => o.document),
  );
  return Object.freeze({
    schema,
    subsetSdl,
    operations: Object.freeze(operations),
    masking,
    dataPolicy,
    gateway,
    inputs,
    upstreams,
    normalisers,
  });
}
