/**
 * Derives a tool's zod output schema from the operation's selection tree: GraphQL nullability and lists
 * respected, scalars and enums typed, field descriptions carried over, and every sensitive field admitting
 * the masked form (the caller may lack the scope that unmasks it). Partial upstream answers add `errors`.
 */
import { GraphQLEnumType, GraphQLScalarType, isListType, isNonNullType, type GraphQLOutputType } from "graphql";
import { z } from "zod";
import type { SelectionTree } from "./selection";

export interface MaskingRules {
  mask: string;
  /** Sensitive coordinate -> the scope that unmasks it. */
  sensitive: ReadonlyMap<string, string>;
}

function leafSchema(type: GraphQLOutputType | undefined): z.ZodType {
  if (type instanceof GraphQLEnumType) return z.enum(type.getValues().map((v) => v.name) as [string, ...string[]]);
  if (type instanceof GraphQLScalarType) {
    switch (type.name) {
      case "Int":
        return z.number().int();
      case "Float":
        return z.number();
      case "Boolean":
        return z.boolean();
      case "String":
      case "ID":
        return z.string();
      default:
        return z.unknown();
    }
  }
  return z.string(); // __typename
}

function typeSchema(
  type: GraphQLOutputType | undefined,
  children: SelectionTree | undefined,
  rules: MaskingRules,
): z.ZodType {
  if (type && isNonNullType(type)) return typeSchema(type.ofType, children, rules);
  if (type && isListType(type)) {
    const item = typeSchema(type.ofType, children, rules);
    return z.array(isNonNullType(type.ofType) ? item : item.nullable());
  }
  return children ? objectSchema(children, rules) : leafSchema(type);
}

export function objectSchema(tree: SelectionTree, rules: MaskingRules): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of tree) {
    let schema = typeSchema(field.type, field.children, rules);
    if (!field.type || !isNonNullType(field.type)) schema = schema.nullable();
    const unmaskScope = rules.sensitive.get(field.coordinate);
    let description = field.description ?? (key === "__typename" ? "GraphQL type name" : `${field.coordinate}`);
    if (unmaskScope) {
      schema = z.union([schema, z.literal(rules.mask)]);
      description += ` Masked as "${rules.mask}" unless the token holds ${unmaskScope}.`;
    }
    schema = schema.describe(description);
    shape[key] = field.conditional ? schema.optional() : schema;
  }
  return z.object(shape);
}

export const upstreamErrorsSchema = z
  .array(
    z.object({
      message: z
        .string()
        .describe("The class of error (access denied, not found, ...); the upstream's own text is never shown"),
      path: z
        .array(z.union([z.string(), z.number()]))
        .optional()
        .describe('Where in the result, e.g. ["orders", 3, "total"]'),
    }),
  )
  .describe(
    "Present only when the upstream answered partial data: the fields it could not resolve (they are null above)",
  );

/** The root: the operation's root fields, plus `errors` for partial answers. */
export function deriveOutputSchema(tree: SelectionTree, rules: MaskingRules): z.ZodObject {
  return objectSchema(tree, rules).extend({ errors: upstreamErrorsSchema.optional() });
}
