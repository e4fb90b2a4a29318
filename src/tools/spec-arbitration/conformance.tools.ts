/**
 * check_api_conformance: the verdict an agent asks for before it calls an API task done. A rejected
 * implementation is a normal result (approved: false, violations in structuredContent, Markdown in the text);
 * isError only when the check cannot run, with the next step in the message.
 */
import { z } from "zod";
import { resolveProjectName } from "../../contracts/services/project-access";
import { contractLabel, runConformanceCheck } from "../../contracts/services/conformance";
import { latestVerdictUri } from "./uris";
import { consoleLinkMeta, VERDICT_VIEW_TOOL_META } from "./verdict-view";
import { renderVerdictMarkdown } from "../../engine";
import { snapshotTitle } from "../../contracts/store/records";
import type { CapabilityContext } from "../../mcp/context";
import { contractVersion, optionalProject, READ_SCOPES, readOnly, ruleSummary, snapshotId, violation } from "./fields";

/** Violations returned in structuredContent; the rest are counted (the Markdown lists fewer still). */
export const MAX_VIOLATIONS_RETURNED = 500;

const DESCRIPTION = [
  "Checks whether the implementation of an API project conforms to its contract (spec-driven development): the verdict for the latest snapshot CI uploaded (or a given snapshot) against the active contract (or a given version).",
  "Call it before you mark an implementation task done, after CI has built and uploaded a snapshot of your change.",
  "approved: true means no error-severity violation. approved: false means the implementation breaks the contract: this is a normal result, not a failure of the tool, and violations lists each breach (rule, severity, location, message). Fix every violation with severity error (location names the operation, then a JSON pointer inside it), let CI upload a new snapshot, and check again.",
  "isError means the check could not run (no such project, no active contract, no snapshot yet, the last build failed, a document unreadable): do what the message says.",
].join(" ");

export function registerConformanceTool(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "check_api_conformance",
    title: "Check API conformance",
    description: DESCRIPTION,
    inputSchema: z
      .object({
        project: optionalProject,
        snapshot: snapshotId.optional().describe("Snapshot id to check; default: the latest snapshot"),
        contractVersion: contractVersion
          .optional()
          .describe("Contract version to check against; default: the active contract"),
      })
      .strict(),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      approved: z
        .boolean()
        .describe("True when no violation has severity error; false means the implementation breaks the contract"),
      totalViolations: z.number().describe("Number of violations of any severity"),
      violations: z
        .array(violation)
        .describe(`The violations (at most ${MAX_VIOLATIONS_RETURNED}; see omittedViolations)`),
      omittedViolations: z.number().describe("Violations not listed because of the limit"),
      summary: z.array(ruleSummary).describe("Violations counted by rule"),
      contract: z
        .object({ version: z.number(), label: z.string().nullable() })
        .describe("The contract version checked against"),
      snapshot: z
        .object({
          id: z.number(),
          number: z.number().describe("Its number in the project (1 = the first)"),
          commit: z.string(),
          branch: z.string().nullable(),
          runUrl: z.string().nullable(),
          uploadedAt: z.string(),
        })
        .describe("The snapshot checked"),
      source: z
        .enum(["stored", "computed"])
        .describe(
          "stored: the verdict recorded when CI uploaded the snapshot; computed: checked now against another contract version",
        ),
      resource: z.string().describe("Subscribe to this resource to hear about the next verdict"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    listingMeta: VERDICT_VIEW_TOOL_META,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const outcome = await runConformanceCheck(context, {
        project,
        snapshotId: input.snapshot,
        contractVersion: input.contractVersion,
      });
      const { verdict, contract, snapshot } = outcome;
      const markdown = renderVerdictMarkdown(verdict, {
        project,
        subject: "snapshot",
        contractVersion: contractLabel(contract),
        title: snapshotTitle(snapshot),
      });
      const judged = `contract ${contractLabel(contract)}${contract.active ? ", the active one" : ", which is not the active contract"}`;
      const nextStep = verdict.approved
        ? `The implementation conforms to ${judged}.`
        : `approved: false — the implementation does not conform to ${judged}. Fix the error-severity violations above, let CI upload a new snapshot, then call check_api_conformance again before calling the task done.`;
      return {
        structuredContent: {
          project,
          approved: verdict.approved,
          totalViolations: verdict.totalViolations,
          violations: verdict.violations.slice(0, MAX_VIOLATIONS_RETURNED),
          omittedViolations: Math.max(
            0,
            verdict.totalViolations - Math.min(verdict.violations.length, MAX_VIOLATIONS_RETURNED),
          ),
          summary: verdict.summary,
          contract: { version: contract.version, label: contract.label },
          snapshot: {
            id: snapshot.id,
            number: snapshot.number,
            commit: snapshot.commit,
            branch: snapshot.branch,
            runUrl: snapshot.runUrl,
            uploadedAt: snapshot.uploadedAt,
          },
          source: outcome.source,
          resource: latestVerdictUri(project),
        },
        text: `${markdown}\n${nextStep}`,
        // The app view's console link: the stored verdict's page, else the project's.
        meta: consoleLinkMeta(
          context.env.PUBLIC_URL,
          project,
          outcome.source === "stored" && snapshot.verdictId !== null ? `/verdicts/${snapshot.verdictId}` : "",
        ),
      };
    },
  });
}
