/**
 * The SDL of the allowed subset of the upstream schema: only the types, fields and arguments that the
 * enabled operations touch (served as graphql://schema). Built by filtering the schema's own AST, so
 * descriptions are kept verbatim.
 */
import {
  Kind,
  TypeInfo,
  getNamedType,
  isInputObjectType,
  print,
  visit,
  visitWithTypeInfo,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from "graphql";

interface Touched {
  types: Set<string>;
  fields: Set<string>;
  /** `Type.field(argument)` */
  arguments: Set<string>;
}

function addType(touched: Touched, type: GraphQLNamedType): void {
  if (touched.types.has(type.name)) return;
  touched.types.add(type.name);
  // An input object is only usable whole: include every field and its types.
  if (isInputObjectType(type))
    for (const field of Object.values(type.getFields())) addType(touched, getNamedType(field.type));
}

function collect(schema: GraphQLSchema, document: DocumentNode, touched: Touched): void {
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition(node) {
        const root = schema.getRootType(node.operation);
        if (root) addType(touched, root);
      },
      Field() {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        if (!parent || !field || field.name.startsWith("__")) return;
        touched.fields.add(`${parent.name}.${field.name}`);
        addType(touched, getNamedType(field.type));
      },
      Argument(node) {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        const argument = typeInfo.getArgument();
        if (!parent || !field || !argument) return;
        touched.arguments.add(`${parent.name}.${field.name}(${node.name.value})`);
        addType(touched, getNamedType(argument.type));
      },
      VariableDefinition() {
        const type = typeInfo.getInputType();
        if (type) addType(touched, getNamedType(type));
      },
    }),
  );
}

const BUILT_IN_SCALARS = new Set(["String", "Int", "Float", "Boolean", "ID"]);

export function allowedSubsetSdl(
  schema: GraphQLSchema,
  schemaDocument: DocumentNode,
  operations: readonly DocumentNode[],
): string {
  const touched: Touched = { types: new Set(), fields: new Set(), arguments: new Set() };
  for (const operation of operations) collect(schema, operation, touched);

  const kept: DefinitionNode[] = [];
  for (const definition of schemaDocument.definitions) {
    if (definition.kind === Kind.SCHEMA_DEFINITION) {
      const operationTypes = definition.operationTypes.filter((o) => touched.types.has(o.type.name.value));
      kept.push({ ...definition, operationTypes });
    } else if (definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.INTERFACE_TYPE_DEFINITION) {
      if (!touched.types.has(definition.name.value)) continue;
      const typeName = definition.name.value;
      const fields = (definition.fields ?? [])
        .filter((field) => touched.fields.has(`${typeName}.${field.name.value}`))
        .map((field) => ({
          ...field,
          arguments: (field.arguments ?? []).filter((argument) =>
            touched.arguments.has(`${typeName}.${field.name.value}(${argument.name.value})`),
          ),
        }));
      kept.push({ ...definition, fields });
    } else if (
      definition.kind === Kind.ENUM_TYPE_DEFINITION ||
      definition.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION ||
      definition.kind === Kind.SCALAR_TYPE_DEFINITION ||
      definition.kind === Kind.UNION_TYPE_DEFINITION
    ) {
      if (touched.types.has(definition.name.value) && !BUILT_IN_SCALARS.has(definition.name.value))
        kept.push(definition);
    }
  }
  return print({ kind: Kind.DOCUMENT, definitions: kept });
}
