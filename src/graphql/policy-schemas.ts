/**
 * Shapes of the order-data policy files (policies/graphql/*.json, operations/<Name>.json, data-policy.json).
 * Cross-references (scopes, schema coordinates, named patterns) are checked by the catalog loader.
 */
import { z } from "zod";

/** snake_case tool names (the MCP catalog's pattern, ^[a-zA-Z0-9_-]{1,64}$, narrowed to what clients accept best). */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

const positiveInt = z.number().int().positive();
const scopeName = z
  .string()
  .regex(/^[a-z][a-z0-9_.]*$/, "scope names are lowercase words joined by dots or underscores");
const envName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, "Worker var, secret and binding names are UPPER_SNAKE_CASE");
const headerName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "an HTTP header name such as Authorization or X-Api-Key");

export const gatewayFileSchema = z.object({
  $comment: z.string().optional(),
  limits: z.object({
    maxDepth: positiveInt.max(20),
    maxAliases: z.number().int().min(0).max(50),
    maxRootFields: positiveInt.max(20),
    maxCost: positiveInt,
    defaultListSize: positiveInt,
    listSizeArguments: z.array(z.string().min(1)).default([]),
  }),
  defaultTimeoutMs: z.number().int().min(50).max(30_000),
  maxResponseBytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024),
});

export const inputsFileSchema = z.object({
  $comment: z.string().optional(),
  enumSynonyms: z.record(z.string(), z.record(z.string(), z.array(z.string().min(1)))).default({}),
  patterns: z
    .record(
      z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/),
      z.object({
        regex: z.string().min(1),
        description: z.string().min(1),
        example: z.string().min(1),
      }),
    )
    .default({}),
});

const upstreamEntry = z
  .object({
    endpointVar: envName.optional(),
    serviceBinding: envName.optional(),
    credentialSecret: envName.optional(),
    credentialHeader: headerName.default("Authorization"),
    credentialScheme: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]*$/)
      .optional(),
    organizationHeader: headerName.optional(),
  })
  .strict();

export const upstreamsFileSchema = z.object({
  $comment: z.string().optional(),
  default: upstreamEntry,
  organizations: z.record(z.string(), upstreamEntry).default({}),
});

export const dataPolicyFileSchema = z.object({
  $comment: z.string().optional(),
  mask: z.string().min(1),
  sensitiveFields: z
    .record(
      z
        .string()
        .regex(
          /^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/,
          "expected a schema coordinate such as Order.customerName",
        ),
      z.object({ unmaskScope: scopeName, reason: z.string().min(1) }),
    )
    .default({}),
});

const variablePolicy = z
  .object({
    pattern: z.string().min(1).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    maxLength: positiveInt.optional(),
    maxItems: positiveInt.optional(),
  })
  .strict();

export const operationPolicySchema = z
  .object({
    $comment: z.string().optional(),
    tool: z
      .string()
      .regex(TOOL_NAME, "tool names are snake_case: lowercase letters, digits and _ (e.g. orders_search)"),
    title: z.string().min(1),
    scopes: z.array(scopeName).min(1, "name at least one scope the caller needs"),
    timeoutMs: z.number().int().min(50).max(30_000).optional(),
    cacheTtlSeconds: z.number().int().min(0).max(86_400).default(0),
    mutation: z.boolean().default(false),
    enabled: z.boolean().optional(),
    idempotent: z.boolean().optional(),
    variables: z.record(z.string(), variablePolicy).default({}),
    examples: z
      .array(z.object({ description: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict())
      .default([]),
  })
  .strict();

export type GatewayFile = z.infer<typeof gatewayFileSchema>;
export type InputsFile = z.infer<typeof inputsFileSchema>;
export type UpstreamEntry = z.infer<typeof upstreamEntry>;
export type UpstreamsFile = z.infer<typeof upstreamsFileSchema>;
export type DataPolicyFile = z.infer<typeof dataPolicyFileSchema>;
export type OperationPolicy = z.infer<typeof operationPolicySchema>;
export type VariablePolicy = z.infer<typeof variablePolicy>;
