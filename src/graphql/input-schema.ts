/**
 * Derives a tool's zod input schema from an operation's variable definitions: GraphQL non-null -> required,
 * nullable -> optional, lists -> arrays, enums -> their values (with synonyms normalised), input objects ->
 * strict objects, defaults kept; descriptions come from the variable's own description in the .graphql file,
 * else from the schema argument it feeds, else from its type. Per-variable policy adds bounds and patterns.
 */
import {
  GraphQLEnumType,
  GraphQLScalarType,
  Kind,
  getNamedType,
  isInputObjectType,
  isSpecifiedScalarType,
  TypeInfo,
  isListType,
  isNonNullType,
  typeFromAST,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from "graphql";
import { z } from "zod";
import { unknownEnumMessage, type EnumNormaliser } from "./input-normalise";
import type { InputsFile, VariablePolicy } from "./policy-schemas";

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
/** Strings without their own policy bound are still bounded: no argument needs more. */
const DEFAULT_MAX_STRING = 1000;

export interface InputDerivation {
  schema: GraphQLSchema;
  normalisers: ReadonlyMap<string, EnumNormaliser>;
  patterns: InputsFile["patterns"];
}

/** A problem found while deriving, reported by the loader with the variable's line. */
export class InputDerivationProblem extends Error {
  constructor(
    readonly rule: string,
    message: string,
    readonly variable: VariableDefinitionNode,
  ) {
    super(message);
  }
}

/** For each variable, the description of the schema argument it is passed to (the first use wins). */
export function argumentDescriptions(schema: GraphQLSchema, document: DocumentNode): Map<string, string> {
  const found = new Map<string, string>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(argument) {
        if (argument.value.kind !== Kind.VARIABLE) return;
        const description = typeInfo.getArgument()?.description;
        if (description && !found.has(argument.value.name.value)) found.set(argument.value.name.value, description);
      },
      ObjectField(field) {
        // `filter: { minTotal: $min }`: the input field's description describes $min.
        if (field.value.kind !== Kind.VARIABLE) return;
        const parent = typeInfo.getParentInputType();
        const named = parent ? getNamedType(parent) : undefined;
        const description =
          named && isInputObjectType(named) ? named.getFields()[field.name.value]?.description : undefined;
        if (description && !found.has(field.value.name.value)) found.set(field.value.name.value, description);
      },
    }),
  );
  return found;
}

function scalarSchema(
  type: GraphQLScalarType,
  policy: VariablePolicy,
  derivation: InputDerivation,
  variable: VariableDefinitionNode,
): z.ZodType {
  switch (type.name) {
    case "Int": {
      return z
        .number()
        .int()
        .min(Math.max(policy.minimum ?? INT_MIN, INT_MIN))
        .max(Math.min(policy.maximum ?? INT_MAX, INT_MAX));
    }
    case "Float": {
      let schema = z.number();
      if (policy.minimum !== undefined) schema = schema.min(policy.minimum);
      if (policy.maximum !== undefined) schema = schema.max(policy.maximum);
      return schema;
    }
    case "Boolean":
      return z.boolean();
    default: {
      // String, ID and custom scalars travel as strings.
      let schema = z.string().max(policy.maxLength ?? DEFAULT_MAX_STRING);
      if (policy.pattern !== undefined) {
        const pattern = derivation.patterns[policy.pattern];
        if (!pattern) {
          throw new InputDerivationProblem(
            "unknown-pattern",
            `variable $${variable.variable.name.value} uses pattern "${policy.pattern}", which policies/graphql/inputs.json does not define (defined: ${Object.keys(derivation.patterns).join(", ") || "none"})`,
            variable,
          );
        }
        schema = schema.regex(new RegExp(pattern.regex), `expected ${pattern.description}, e.g. ${pattern.example}`);
      }
      return schema;
    }
  }
}

function enumSchema(type: GraphQLEnumType, derivation: InputDerivation): z.ZodType {
  const normaliser = derivation.normalisers.get(type.name);
  const values = type.getValues().map((v) => v.name);
  return z
    .string()
    .meta({ enum: values })
    .transform((word, context) => {
      const value = normaliser ? normaliser.normalise(word) : values.find((v) => v === word.trim().toUpperCase());
      if (value === undefined) {
        context.addIssue({
          code: "custom",
          message: normaliser
            ? unknownEnumMessage(normaliser)
            : `not a valid ${type.name}. Valid values: ${values.join(", ")}`,
        });
        return z.NEVER;
      }
      return value;
    });
}

function inputTypeSchema(
  type: GraphQLInputType,
  policy: VariablePolicy,
  derivation: InputDerivation,
  variable: VariableDefinitionNode,
  top: boolean,
): z.ZodType {
  if (isNonNullType(type)) return inputTypeSchema(type.ofType, policy, derivation, variable, top);
  if (isListType(type)) {
    const items = inputTypeSchema(type.ofType, {}, derivation, variable, false);
    const item = isNonNullType(type.ofType) ? items : items.nullable();
    return z.array(item).max(policy.maxItems ?? 100);
  }
  if (type instanceof GraphQLEnumType) return enumSchema(type, derivation);
  if (type instanceof GraphQLScalarType) return scalarSchema(type, top ? policy : {}, derivation, variable);
  const shape: Record<string, z.ZodType> = {};
  for (const field of Object.values(type.getFields())) {
    let schema = inputTypeSchema(field.type, {}, derivation, variable, false);
    if (field.description) schema = schema.describe(field.description);
    shape[field.name] = isNonNullType(field.type) ? schema : schema.optional();
  }
  const object = z.object(shape).strict();
  return type.description ? object.describe(type.description) : object;
}

function checkPolicyFits(type: GraphQLInputType, policy: VariablePolicy, variable: VariableDefinitionNode): void {
  const base = isNonNullType(type) ? type.ofType : type;
  const name = `$${variable.variable.name.value}`;
  const scalar = base instanceof GraphQLScalarType ? base.name : undefined;
  const numeric = scalar === "Int" || scalar === "Float";
  if ((policy.minimum !== undefined || policy.maximum !== undefined) && !numeric) {
    throw new InputDerivationProblem(
      "variable-policy-mismatch",
      `minimum/maximum apply to Int and Float variables; ${name} is ${String(type)}`,
      variable,
    );
  }
  if (
    (policy.pattern !== undefined || policy.maxLength !== undefined) &&
    (numeric || scalar === "Boolean" || !scalar)
  ) {
    throw new InputDerivationProblem(
      "variable-policy-mismatch",
      `pattern/maxLength apply to String, ID and custom scalar variables; ${name} is ${String(type)}`,
      variable,
    );
  }
  if (policy.maxItems !== undefined && !isListType(base)) {
    throw new InputDerivationProblem(
      "variable-policy-mismatch",
      `maxItems applies to list variables; ${name} is ${String(type)}`,
      variable,
    );
  }
  if (policy.minimum !== undefined && policy.maximum !== undefined && policy.minimum > policy.maximum) {
    throw new InputDerivationProblem(
      "variable-policy-mismatch",
      `${name}: minimum ${policy.minimum} is greater than maximum ${policy.maximum}`,
      variable,
    );
  }
}

/**
 * The tool's input schema. Throws InputDerivationProblem naming the variable when the policy does not fit
 * the variable's type or names an unknown pattern.
 */
export function deriveInputSchema(
  operation: OperationDefinitionNode,
  variablePolicies: Readonly<Record<string, VariablePolicy>>,
  descriptionsFromSchema: ReadonlyMap<string, string>,
  derivation: InputDerivation,
): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const variable of operation.variableDefinitions ?? []) {
    const name = variable.variable.name.value;
    const type = typeFromAST(derivation.schema, variable.type) as GraphQLInputType | undefined;
    if (!type)
      throw new InputDerivationProblem("graphql-validation", `variable $${name} has an unknown type`, variable);
    const policy = variablePolicies[name] ?? {};
    checkPolicyFits(type, policy, variable);
    const base = isNonNullType(type) ? type.ofType : type;
    let schema = inputTypeSchema(type, policy, derivation, variable, true);

    const pattern = policy.pattern ? derivation.patterns[policy.pattern] : undefined;
    const description =
      variable.description?.value ??
      descriptionsFromSchema.get(name) ??
      (!isSpecifiedScalarType(base as GraphQLScalarType) &&
      "description" in base &&
      typeof base.description === "string"
        ? base.description
        : undefined) ??
      `GraphQL variable $${name} (${String(type)})`;
    const extras = [
      base instanceof GraphQLEnumType
        ? `Valid values: ${base
            .getValues()
            .map((v) => v.name)
            .join(", ")}.`
        : "",
      pattern && !description.includes(pattern.example)
        ? `Format: ${pattern.description}, e.g. ${pattern.example}.`
        : "",
    ].filter(Boolean);
    schema = schema.describe([description, ...extras].join(" "));

    if (variable.defaultValue) {
      const value = valueFromAST(variable.defaultValue, type);
      // biome-ignore lint/plugin: zod types default() by the schema's own output type, which this generic builder cannot name
      shape[name] = schema.default(value as never);
    } else {
      shape[name] = isNonNullType(type) ? schema : schema.optional();
    }
  }
  return z.object(shape).strict();
}
