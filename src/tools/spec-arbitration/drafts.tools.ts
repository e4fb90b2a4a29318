/**
 * The spec-driven inner loop without waiting for CI: check_api_draft (the OpenAPI document of the agent's local
 * build against the contract) and compare_contract_versions (what a contract change breaks for the clients of
 * the previous version, for stored versions or an edited contract). Neither stores anything.
 */
import { z } from "zod";
import { cannotVerify, contractFailure } from "../../contracts/services/failure";
import { resolveProjectName } from "../../contracts/services/project-access";
import { contractLabel } from "../../contracts/services/conformance";
import { renderVerdictMarkdown } from "../../engine";
import {
  checkDraft,
  compareContracts,
  MAX_MCP_DRAFT_BYTES,
  type SpecCheckFailure,
} from "../../contracts/services/drafts";
import type { CapabilityContext } from "../../mcp/context";
import { consoleLinkMeta, linesMeta, VERDICT_VIEW_TOOL_META } from "./verdict-view";
import { MAX_VIOLATIONS_RETURNED } from "./conformance.tools";
import { contractVersion, optionalProject, READ_SCOPES, readOnly, ruleSummary, violation } from "./fields";

const MAX_MIB = MAX_MCP_DRAFT_BYTES / (1024 * 1024);

const documentInput = z
  .union([z.string().min(1), z.record(z.string(), z.unknown())])
  .describe(
    `The OpenAPI document (3.0 or 3.1): its JSON or YAML text, or the document as an object. At most ${MAX_MIB} MiB; larger documents go through the REST API or the arbiter CLI.`,
  );

/** The service's failure, classed by the contracts domain's one table (as REST classes it). */
function failureOf(result: SpecCheckFailure) {
  const problems = result.code === "invalid_document" ? { problems: result.problems.slice(0, 20) } : {};
  return contractFailure(result.code, result.message, problems);
}

/** The document as UTF-8 bytes, refused with the way out when it is larger than an MCP message should carry. */
function documentBytes(value: string | Record<string, unknown>, what: string, restRoute: string): Uint8Array {
  const bytes = new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));
  if (bytes.byteLength > MAX_MCP_DRAFT_BYTES) {
    throw cannotVerify(
      "document_too_large",
      `document: the ${what} is ${(bytes.byteLength / 1048576).toFixed(1)} MiB; over MCP at most ${MAX_MIB} MiB is accepted. Send larger documents with the CLI (${restRoute === "drafts" ? "arbiter check FILE --project <p>" : "arbiter diff FILE --project <p>"}) or the REST route POST /api/v1/projects/<project>/${restRoute}.`,
      "invalid-input",
    );
  }
  return bytes;
}

const verdictShape = {
  approved: z.boolean().describe("True when no violation has severity error"),
  totalViolations: z.number().describe("Number of violations of any severity"),
  violations: z.array(violation).describe(`The violations (at most ${MAX_VIOLATIONS_RETURNED}; see omittedViolations)`),
  omittedViolations: z.number().describe("Violations not listed because of the limit"),
  summary: z.array(ruleSummary).describe("Violations counted by rule"),
};

function verdictFields(verdict: {
  approved: boolean;
  totalViolations: number;
  violations: z.infer<typeof violation>[];
  summary: z.infer<typeof ruleSummary>[];
}) {
  return {
    approved: verdict.approved,
    totalViolations: verdict.totalViolations,
    violations: verdict.violations.slice(0, MAX_VIOLATIONS_RETURNED),
    omittedViolations: Math.max(0, verdict.violations.length - MAX_VIOLATIONS_RETURNED),
    summary: verdict.summary,
  };
}

const DRAFT_DESCRIPTION = [
  "Checks a draft of the implementation against the project's contract, without waiting for CI: pass the OpenAPI document your local build just generated (JSON or YAML text, or an object).",
  "Use it in the inner loop of spec-driven development: after a local build, before you push; fix the error-severity violations and check again.",
  'Same verdict shape as check_api_conformance, with source: "draft". Nothing is stored: CI\'s snapshot (check_api_conformance) remains the verdict of record, so still check it after CI has run.',
  `isError means the check could not run (no project or contract, a document that is not valid OpenAPI, a draft over ${MAX_MIB} MiB): do what the message says.`,
].join(" ");

const COMPARE_DESCRIPTION = [
  "Shows what a contract change breaks for clients of the previous version, before you upload it (the planning step of spec-driven development).",
  "from is the version clients rely on (default: the active contract); to is a stored version, or pass document with the edited contract (JSON or YAML text, or an object) to compare a change you have not uploaded.",
  "approved: false means the change breaks clients: each violation (severity error) names the operation and JSON pointer. An added operation is reported as info. Nothing is stored.",
].join(" ");

export function registerDraftTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "check_api_draft",
    title: "Check an API draft",
    description: DRAFT_DESCRIPTION,
    inputSchema: z
      .object({
        document: documentInput,
        project: optionalProject,
        contractVersion: contractVersion
          .optional()
          .describe("Contract version to check against; default: the active contract"),
      })
      .strict(),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      source: z
        .literal("draft")
        .describe("draft: checked now, not stored; CI's snapshot remains the verdict of record"),
      ...verdictShape,
      contract: z
        .object({ version: z.number(), label: z.string().nullable() })
        .describe("The contract version checked against"),
      draft: z
        .object({ digest: z.string(), operationCount: z.number() })
        .describe("sha256 of the draft as received, and its number of operations"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    listingMeta: VERDICT_VIEW_TOOL_META,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const bytes = documentBytes(input.document, "draft", "drafts");
      const result = await checkDraft(
        context.env,
        context.principal.organizationId,
        project,
        bytes,
        input.contractVersion,
      );
      if (!result.ok) throw failureOf(result);
      const markdown = renderVerdictMarkdown(result.verdict, {
        project,
        subject: "draft",
        contractVersion: contractLabel(result.contract),
        title: "local draft",
      });
      const next = result.verdict.approved
        ? "The draft conforms. Push it; once CI has uploaded its snapshot, check_api_conformance gives the verdict of record."
        : "approved: false — the draft breaks the contract. Fix the error-severity violations, rebuild, and call check_api_draft again.";
      return {
        structuredContent: {
          project,
          source: "draft" as const,
          ...verdictFields(result.verdict),
          contract: { version: result.contract.version, label: result.contract.label },
          draft: { digest: result.digest, operationCount: result.operationCount },
        },
        text: `${markdown}\n${next}`,
        meta: {
          ...consoleLinkMeta(context.env.PUBLIC_URL, project),
          // Lines only for a draft sent as text: an object's lines would be those of our own serialisation.
          ...(typeof input.document === "string" ? linesMeta(result.verdict.violations, bytes) : {}),
        },
      };
    },
  });

  ctx.registerTool({
    name: "compare_contract_versions",
    title: "Compare contract versions",
    description: COMPARE_DESCRIPTION,
    inputSchema: z
      .object({
        project: optionalProject,
        from: contractVersion.optional().describe("The version clients rely on; default: the active contract"),
        to: contractVersion
          .optional()
          .describe("A stored version to compare with; omit it and pass document for an edited contract"),
        document: documentInput
          .optional()
          .describe(
            `The edited contract (JSON or YAML text, or an object), when it is not uploaded yet; at most ${MAX_MIB} MiB`,
          ),
      })
      .strict()
      .refine(
        (value) => (value.to === undefined) !== (value.document === undefined),
        "pass exactly one of to (a stored version) or document (an edited contract)",
      ),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      from: z.object({ version: z.number(), label: z.string().nullable() }).describe("The version clients rely on"),
      to: z
        .object({ version: z.number().nullable(), label: z.string().nullable(), digest: z.string().nullable() })
        .describe("The version compared (or the edited contract's digest)"),
      breakingChanges: z.number().describe("Error-severity changes: what breaks clients of `from`"),
      ...verdictShape,
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    listingMeta: VERDICT_VIEW_TOOL_META,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const to =
        input.to !== undefined
          ? { version: input.to }
          : { bytes: documentBytes(input.document!, "edited contract", "contracts/compare") };
      const result = await compareContracts(context.env, context.principal.organizationId, project, input.from, to);
      if (!result.ok) throw failureOf(result);
      const breaking = result.verdict.violations.filter((v) => v.severity === "error").length;
      const toName = result.to ? contractLabel(result.to) : "the edited contract";
      const markdown = renderVerdictMarkdown(result.verdict, {
        project,
        subject: "contract-change",
        title: `${contractLabel(result.from)} → ${toName}`,
      });
      return {
        structuredContent: {
          project,
          from: { version: result.from.version, label: result.from.label },
          to: result.to
            ? { version: result.to.version, label: result.to.label, digest: null }
            : { version: null, label: null, digest: result.digest ?? null },
          breakingChanges: breaking,
          ...verdictFields(result.verdict),
        },
        text: markdown,
        meta: consoleLinkMeta(context.env.PUBLIC_URL, project),
      };
    },
  });
}
