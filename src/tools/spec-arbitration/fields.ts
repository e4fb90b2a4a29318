/**
 * Input fields and output shapes shared by the spec arbitration tools: one named zod schema per field, each with
 * the description the model reads. Output shapes mirror the ContractStore records (the REST API returns the same).
 */
import { z } from "zod";
import { PROJECT_NAME_PATTERN, PROJECT_NAME_RULE } from "../../contracts/store/names";

export const READ_SCOPES = ["contracts.read"] as const;

export const readOnly = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const projectName = z
  .string()
  .regex(PROJECT_NAME_PATTERN, PROJECT_NAME_RULE)
  .describe("Project name, e.g. orders-api (spec_projects_list shows them)");
/**
 * `x-mcp-header` (SEP-2243): 2026-07-28 clients also send the project as the `Mcp-Param-Project` HTTP header, so
 * gateways and logs can see which project a call is about without parsing the body; the SDK rejects a header that
 * disagrees with the body. 2025-11-25 clients ignore the keyword.
 */
export const optionalProject = projectName
  .optional()
  .describe("Project name; default: your default project, set with spec_project_select")
  .meta({ "x-mcp-header": "Project" });
export const contractVersion = z
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .describe("A contract version number (spec_contracts_list shows them)");
export const snapshotId = z
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .describe("A snapshot id (spec_snapshots_list shows them)");
export const pageLimit = z
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .describe("How many entries to return, newest first (1-100, default 20)");
export const pageBefore = z
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .optional()
  .describe("Cursor: return entries older than this (the nextBefore of the previous page)");

const documentFacts = {
  contentHash: z.string().describe("sha-256 of the stored document"),
  size: z.number().describe("Document size in bytes"),
  format: z.enum(["json", "yaml"]).describe("Document format as uploaded"),
  openapiVersion: z.string().describe("The document's OpenAPI version"),
  operationCount: z.number().describe("Number of operations in the document"),
};

export const contractRecord = z.object({
  project: z.string().describe("Project name"),
  version: z.number().describe("Contract version number"),
  label: z.string().nullable().describe("Free label, e.g. the Spec Kit feature folder 003-orders"),
  active: z.boolean().describe("Whether this is the project's active contract"),
  uploadedBy: z.string().describe("Who uploaded it (user id or ci-key:<id>)"),
  uploadedAt: z.string().describe("Upload time (ISO 8601)"),
  verdictId: z.number().nullable().describe("Verdict of the contract against the organization's constitution"),
  ...documentFacts,
});

export const snapshotRecord = z.object({
  id: z.number().describe("Snapshot id, unique in the organization: what the tools and routes take"),
  number: z.number().describe("The snapshot's number in its project: 1 for the first, 2 for the second, ..."),
  project: z.string().describe("Project name"),
  commit: z.string().describe("Commit the build ran on"),
  branch: z.string().nullable().describe("Branch the build ran on"),
  runUrl: z.string().nullable().describe("Link to the CI run"),
  contractVersion: z.number().describe("The contract version the snapshot was checked against at upload"),
  uploadedBy: z.string().describe("Who uploaded it (user id or ci-key:<id>)"),
  uploadedAt: z.string().describe("Upload time (ISO 8601)"),
  verdictId: z.number().nullable().describe("The verdict recorded at upload"),
  approved: z
    .boolean()
    .nullable()
    .describe(
      "Whether the snapshot was approved at upload, against contractVersion (which may no longer be the active contract)",
    ),
  totalViolations: z.number().nullable().describe("Violations found at upload"),
  ...documentFacts,
});

export const projectRecord = z.object({
  name: z.string().describe("Project name"),
  createdAt: z.string().describe("When the first contract was uploaded"),
  createdBy: z.string().describe("Who created the project"),
  activeContractVersion: z.number().nullable().describe("The active contract version"),
  contractCount: z.number().describe("Contract versions stored"),
  snapshotCount: z.number().describe("Snapshots stored"),
  latestSnapshotId: z.number().nullable().describe("The newest snapshot"),
});

export const violation = z.object({
  rule: z.string().describe("Rule id, e.g. missing-operation"),
  severity: z
    .enum(["error", "warning", "info", "accepted"])
    .describe("error rejects; warning and info do not; accepted is an error a team accepted until a date"),
  location: z.string().describe('"<METHOD> <path>" then a JSON pointer inside the operation, or a document pointer'),
  message: z.string().describe("What is wrong"),
  fingerprint: z
    .string()
    .optional()
    .describe("On errors and accepted breaks: the stable name of the change that spec_break_accept takes"),
  acceptance: z
    .object({
      id: z.string(),
      reason: z.string(),
      owner: z.string(),
      expiresAt: z.string().describe("ISO 8601; after it the break is an error again"),
    })
    .optional()
    .describe("On accepted breaks: the acceptance in force"),
  usage: z
    .object({
      days: z.number().describe("The window, in days up to today"),
      exchanges: z.number().describe("Recorded exchanges of the operation in the window"),
      touched: z
        .object({ what: z.string(), count: z.number() })
        .optional()
        .describe("The status, parameter or property the change touches, and how often it was exercised"),
    })
    .optional()
    .describe("Is this break used? From the project's recorded traffic; absent when none was recorded in the window"),
});

export const ruleSummary = z.object({
  rule: z.string().describe("Rule id"),
  severity: z
    .enum(["error", "warning", "info", "accepted"])
    .describe("The rule's effective severity, or accepted for its accepted breaks"),
  count: z.number().describe("Violations of this rule"),
});
