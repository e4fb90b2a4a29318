/**
 * validate_response_payload: checks a real response body against the contract's JSON Schema for that operation,
 * status code and media type. Errors come back with their JSON pointer, keyword and message; a response the
 * contract gives no JSON schema is approved: false with a missing-schema violation (a normal result).
 */
import { z } from "zod";
import { resolveProjectName } from "../../contracts/services/project-access";
import { contractLabel } from "../../contracts/services/conformance";
import { validatePayload } from "../../contracts/services/payload-validation";
import type { CapabilityContext } from "../../mcp/context";
import { ToolFailure } from "../../mcp/context";
import { contractVersion, optionalProject, READ_SCOPES, readOnly, violation } from "./fields";

/** Payloads given as JSON text longer than this are refused (the whole tool call travels in one message). */
export const MAX_PAYLOAD_TEXT_CHARS = 4 * 1024 * 1024;
const MAX_ERRORS_IN_TEXT = 50;

const httpMethod = z
  .string()
  .regex(/^(get|put|post|delete|patch|head|options|trace)$/i, "an HTTP method such as GET or POST")
  .describe("HTTP method of the request that produced the response, e.g. GET");
const requestPath = z
  .string()
  .min(1)
  .max(2048)
  .regex(
    /^(\/|https?:\/\/)/,
    'a path starting with "/" (a template such as /orders/{id} or a concrete path such as /orders/ord_1001), or a full URL',
  )
  .describe(
    "Path of the request: a template (/orders/{id}) or a concrete path (/orders/ord_1001); a full URL is reduced to its path",
  );
const statusCode = z.number().int().min(100).max(599).describe("HTTP status code of the response, e.g. 200");
const payloadValue = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .describe(
    'The response body: a JSON object/array/value, or its JSON text as a string (a string is parsed as JSON, so a body that is itself a JSON string must be given encoded, e.g. "\\"ok\\"")',
  );
const contentType = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe("The response's Content-Type (e.g. application/json); default: the contract's JSON media type");

function payloadFrom(value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (value.length > MAX_PAYLOAD_TEXT_CHARS) {
    throw new ToolFailure(
      "invalid-input",
      `payload: the JSON text is ${value.length} characters, more than the ${MAX_PAYLOAD_TEXT_CHARS} accepted; validate a smaller sample of the response.`,
    );
  }
  try {
    return JSON.parse(value);
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message.split("\n")[0]?.slice(0, 200) : "not JSON";
    throw new ToolFailure(
      "invalid-input",
      `payload: the string is not valid JSON text (${detail}). Send the response body as a JSON object, or as its exact JSON text.`,
    );
  }
}

function pathFrom(value: string): string {
  if (value.startsWith("/")) return value;
  try {
    return new URL(value).pathname || "/";
  } catch {
    throw new ToolFailure(
      "invalid-input",
      `path: "${value.slice(0, 100)}" is not a path or a URL; give a path such as /orders/ord_1001.`,
    );
  }
}

export function registerPayloadTool(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "validate_response_payload",
    title: "Validate a response payload",
    description:
      "Validates a real API response body against the JSON Schema the project's contract declares for that operation, status code and media type. Use it while implementing or testing an endpoint. approved: false lists each error with the JSON pointer into the payload, the schema keyword and a message (or a violation such as missing-schema when the contract declares no JSON schema for that response, or unknown-operation): fix the implementation, or the request you made. isError means the check could not run (no project, no active contract, payload not JSON).",
    inputSchema: z
      .object({
        project: optionalProject,
        contractVersion: contractVersion
          .optional()
          .describe("Contract version to validate against; default: the active contract"),
        method: httpMethod,
        path: requestPath,
        status: statusCode,
        payload: payloadValue,
        contentType,
      })
      .strict(),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      contract: z.object({ version: z.number(), label: z.string().nullable() }).describe("The contract version used"),
      approved: z.boolean().describe("True when the payload matches the contract's schema"),
      operation: z.string().optional().describe('The matched operation, "<METHOD> <path template>"'),
      responseKey: z
        .string()
        .optional()
        .describe("The response entry used: the exact code, a range such as 2XX, or default"),
      errors: z
        .array(
          z.object({
            pointer: z.string().describe('JSON pointer into the payload ("" is the root)'),
            keyword: z.string().describe("The JSON Schema keyword that failed, e.g. type or required"),
            message: z.string().describe("What is wrong"),
          }),
        )
        .describe("Leaf validation errors"),
      violations: z
        .array(violation)
        .describe(
          "Why the payload could not be validated, as rule ids (missing-schema, undocumented-operation, undocumented-status-code, ...)",
        ),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const payload = payloadFrom(input.payload);
      const { contract, verdict, validatorsBuilt } = await validatePayload(context, project, input.contractVersion, {
        method: input.method.toUpperCase(),
        path: pathFrom(input.path),
        status: input.status,
        payload,
        ...(input.contentType ? { contentType: input.contentType } : {}),
      });
      const lines = [
        `${verdict.approved ? "Approved" : "Rejected"}: ${input.method.toUpperCase()} ${input.path} → ${input.status}${verdict.operation ? ` matched ${verdict.operation}${verdict.responseKey ? ` response ${verdict.responseKey}` : ""}` : ""} (contract ${contractLabel(contract)} of "${project}").`,
        ...verdict.violations.map((v) => `- ${v.rule}: ${v.message}`),
        ...verdict.errors
          .slice(0, MAX_ERRORS_IN_TEXT)
          .map((e) => `- ${e.pointer === "" ? "(root)" : e.pointer} [${e.keyword}]: ${e.message}`),
      ];
      if (verdict.errors.length > MAX_ERRORS_IN_TEXT)
        lines.push(`… and ${verdict.errors.length - MAX_ERRORS_IN_TEXT} more errors (see structuredContent).`);
      return {
        structuredContent: {
          project,
          contract: { version: contract.version, label: contract.label },
          approved: verdict.approved,
          ...(verdict.operation ? { operation: verdict.operation } : {}),
          ...(verdict.responseKey ? { responseKey: verdict.responseKey } : {}),
          errors: verdict.errors,
          violations: verdict.violations,
        },
        text: lines.join("\n"),
        // Observable cache behaviour: 0 when the validator for this contract version and operation was reused.
        meta: { payloadValidatorsBuilt: validatorsBuilt },
      };
    },
  });
}
