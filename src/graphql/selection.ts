/**
 * The response shape of an operation, computed once at load from its selection set (fragments expanded):
 * for every response key, the schema coordinate it comes from (`Order.customerName`), its GraphQL type and,
 * for objects, the keys below. The output schema and the masking both walk this tree, so they agree.
 */
import {
  Kind,
  getNamedType,
  isCompositeType,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";

export interface SelectedField {
  /** `Type.field` of the schema, e.g. `Order.customerName` (`Type.__typename` for the meta field). */
  coordinate: string;
  type: GraphQLOutputType | undefined;
  description: string | undefined;
  /** Selected only under a type condition narrower than the parent (interfaces, unions): may be absent. */
  conditional: boolean;
  children: SelectionTree | undefined;
}

export type SelectionTree = ReadonlyMap<string, SelectedField>;

export function selectionTree(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): SelectionTree {
  const tree = new Map<string, SelectedField>();
  const collect = (
    type: GraphQLCompositeType,
    set: SelectionSetNode,
    conditional: boolean,
    merged: Map<string, SelectedField>,
  ) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const name = selection.name.value;
        const definition = name === "__typename" ? undefined : "getFields" in type ? type.getFields()[name] : undefined;
        const fieldType = definition?.type;
        const named = fieldType ? getNamedType(fieldType) : undefined;
        const existing = merged.get(key);
        let children = existing?.children;
        if (selection.selectionSet && named && isCompositeType(named)) {
          const below = new Map(existing?.children ?? []);
          collect(named, selection.selectionSet, false, below);
          children = below;
        }
        merged.set(key, {
          coordinate: `${type.name}.${name}`,
          type: fieldType,
          description: definition?.description ?? undefined,
          conditional: existing ? existing.conditional && conditional : conditional,
          children,
        });
      } else {
        const condition =
          selection.kind === Kind.INLINE_FRAGMENT
            ? selection.typeCondition?.name.value
            : fragments.get(selection.name.value)?.typeCondition.name.value;
        const selected =
          selection.kind === Kind.INLINE_FRAGMENT
            ? selection.selectionSet
            : fragments.get(selection.name.value)?.selectionSet;
        if (!selected) continue;
        const narrowed = condition ? schema.getType(condition) : type;
        const narrowerType = narrowed && isCompositeType(narrowed) ? narrowed : type;
        collect(narrowerType, selected, conditional || narrowerType.name !== type.name, merged);
      }
    }
  };
  collect(parent, selectionSet, false, tree);
  return tree;
}

/** Every schema coordinate the tree selects. */
export function selectedCoordinates(tree: SelectionTree): string[] {
  const out: string[] = [];
  for (const field of tree.values()) {
    out.push(field.coordinate);
    if (field.children) out.push(...selectedCoordinates(field.children));
  }
  return out;
}
