/**
 * Load-time limits on an allowlisted operation: selection depth (following fragments), aliases, root
 * fields and an estimated cost. Pure: takes the parsed document and the schema, returns violations with the
 * node to report the line of. Validation against the schema (and so fragment cycles) has already passed.
 */
import {
  Kind,
  getNamedType,
  getNullableType,
  isListType,
  isCompositeType,
  type ASTNode,
  type FieldNode,
  type GraphQLArgument,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import type { GatewayFile } from "./policy-schemas";

export type OperationLimits = GatewayFile["limits"];

export interface LimitViolation {
  rule: "max-depth" | "max-aliases" | "max-root-fields" | "max-cost";
  problem: string;
  node: ASTNode;
}

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

/** Calls `visit` for every field reachable from `selectionSet`, expanding fragment spreads and inline fragments. */
function forEachField(
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  visit: (field: FieldNode) => void,
  seen: ReadonlySet<string> = new Set(),
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) visit(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) forEachField(selection.selectionSet, fragments, visit, seen);
    else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (fragment && !seen.has(name)) forEachField(fragment.selectionSet, fragments, visit, new Set([...seen, name]));
    }
  }
}

/** The deepest field reachable from `selectionSet` (root fields are at depth 1), following fragments. */
function deepest(
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  depth: number,
): { depth: number; node: FieldNode | undefined } {
  let best: { depth: number; node: FieldNode | undefined } = { depth: 0, node: undefined };
  forEachField(selectionSet, fragments, (field) => {
    const candidate = field.selectionSet ? deepest(field.selectionSet, fragments, depth + 1) : { depth, node: field };
    if (candidate.depth > best.depth) best = candidate;
  });
  return best;
}

function aliasedFields(selectionSet: SelectionSetNode, fragments: Fragments): FieldNode[] {
  const found: FieldNode[] = [];
  forEachField(selectionSet, fragments, (field) => {
    if (field.alias) found.push(field);
    if (field.selectionSet) found.push(...aliasedFields(field.selectionSet, fragments));
  });
  return found;
}

function numericDefault(argument: GraphQLArgument): number | undefined {
  const given = argument.default;
  if (!given) return undefined;
  if (given.literal?.kind === Kind.INT) return Number(given.literal.value);
  return typeof given.value === "number" ? given.value : undefined;
}

/** Estimated number of items a list field returns: its size argument, else the schema default, else the policy default. */
function listSize(
  field: FieldNode,
  argumentDefaults: ReadonlyMap<string, unknown>,
  limits: OperationLimits,
  variableMaxima: ReadonlyMap<string, number>,
): number {
  for (const name of limits.listSizeArguments) {
    const argument = field.arguments?.find((a) => a.name.value === name);
    const value: ValueNode | undefined = argument?.value;
    if (value?.kind === Kind.INT) return Number(value.value);
    if (value?.kind === Kind.VARIABLE) return variableMaxima.get(value.name.value) ?? limits.defaultListSize;
    const fallback = argumentDefaults.get(name);
    if (argument === undefined && typeof fallback === "number") return fallback;
  }
  return limits.defaultListSize;
}

function cost(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  multiplier: number,
  limits: OperationLimits,
  variableMaxima: ReadonlyMap<string, number>,
): number {
  let total = 0;
  const visit = (type: GraphQLCompositeType, set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const narrowed = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        visit(narrowed && isCompositeType(narrowed) ? narrowed : type, selection.selectionSet);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        const narrowed = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
        if (fragment) visit(narrowed && isCompositeType(narrowed) ? narrowed : type, fragment.selectionSet);
      } else {
        if (selection.name.value.startsWith("__")) continue;
        const definition = "getFields" in type ? type.getFields()[selection.name.value] : undefined;
        total += multiplier;
        if (!definition || !selection.selectionSet) continue;
        const defaults = new Map(definition.args.map((a) => [a.name, numericDefault(a)] as const));
        const inner = isListType(getNullableType(definition.type))
          ? multiplier * listSize(selection, defaults, limits, variableMaxima)
          : multiplier;
        const named = getNamedType(definition.type);
        if (isCompositeType(named))
          total += cost(schema, named, selection.selectionSet, fragments, inner, limits, variableMaxima);
      }
    }
  };
  visit(parent, selectionSet);
  return total;
}

/**
 * Checks one operation and returns its estimated cost (shown in policies://access). `variableMaxima` holds the largest value each Int variable may take (from the
 * operation policy's `maximum`, or its default), so a list sized by a variable is costed at its worst case.
 */
export function checkOperationLimits(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Fragments,
  rootType: GraphQLCompositeType,
  limits: OperationLimits,
  variableMaxima: ReadonlyMap<string, number>,
): { violations: LimitViolation[]; estimatedCost: number } {
  const violations: LimitViolation[] = [];

  const depth = deepest(operation.selectionSet, fragments, 1);
  if (depth.depth > limits.maxDepth && depth.node) {
    violations.push({
      rule: "max-depth",
      problem: `selection depth ${depth.depth} (at field "${depth.node.name.value}") exceeds the limit of ${limits.maxDepth}`,
      node: depth.node,
    });
  }

  const aliases = aliasedFields(operation.selectionSet, fragments);
  if (aliases.length > limits.maxAliases) {
    const node = aliases[limits.maxAliases]!;
    violations.push({
      rule: "max-aliases",
      problem: `${aliases.length} aliases exceed the limit of ${limits.maxAliases}`,
      node,
    });
  }

  const roots: FieldNode[] = [];
  forEachField(operation.selectionSet, fragments, (field) => roots.push(field));
  if (roots.length > limits.maxRootFields) {
    violations.push({
      rule: "max-root-fields",
      problem: `${roots.length} root fields exceed the limit of ${limits.maxRootFields}`,
      node: roots[limits.maxRootFields]!,
    });
  }

  const estimated = cost(schema, rootType, operation.selectionSet, fragments, 1, limits, variableMaxima);
  if (estimated > limits.maxCost) {
    violations.push({
      rule: "max-cost",
      problem: `estimated cost ${estimated} exceeds the limit of ${limits.maxCost} (one per field, times the length of every enclosing list)`,
      node: operation,
    });
  }
  return { violations, estimatedCost: estimated };
}
