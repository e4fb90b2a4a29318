/**
 * spec_exchanges_latest: the verdict on the recorded traffic CI uploaded last for a project (HAR or NDJSON from
 * integration tests, POST /api/v1/projects/{project}/exchanges), so an agent sees whether real requests and
 * responses conform, not only the generated document. Read-only; the exchanges themselves are never stored.
 */
import { z } from "zod";
import { cannotVerify } from "../../contracts/services/failure";
import { resolveProjectName } from "../../contracts/services/project-access";
import { latestExchangeRun } from "../../contracts/services/exchanges";
import { verdictBody } from "../../contracts/services/verdicts";
import type { CapabilityContext } from "../../mcp/context";
import { optionalProject, READ_SCOPES, readOnly, ruleSummary, violation } from "./fields";

const exchangeRun = z.object({
  id: z.number().describe("Run id"),
  project: z.string().describe("Project name"),
  contractVersion: z.number().describe("The contract version the traffic was checked against"),
  format: z.enum(["har", "ndjson"]).describe("How the exchanges were uploaded"),
  exchangeCount: z.number().describe("Exchanges checked"),
  uploadDigest: z.string().describe("sha-256 of the uploaded recording"),
  approved: z.boolean().describe("Whether the traffic conformed (no error)"),
  totalViolations: z.number().describe("Violations found, listed or not"),
  errorCount: z.number().describe("Error-severity violations"),
  verdictHash: z.string().describe("Content hash of the stored verdict"),
  commit: z.string().nullable().describe("Commit the recording was made on"),
  branch: z.string().nullable().describe("Branch"),
  runUrl: z.string().nullable().describe("Link to the CI run"),
  uploadedBy: z.string().describe("Who uploaded it (user id or ci-key:<id>)"),
  uploadedAt: z.string().describe("Upload time (ISO 8601)"),
});

export function registerExchangeTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "spec_exchanges_latest",
    title: "Latest recorded-traffic verdict",
    description:
      "Returns the verdict on the HTTP traffic CI recorded last for an API project (integration tests' requests and responses, uploaded as HAR or NDJSON) checked against the contract: each violation names the exchange, the operation and a JSON pointer, e.g. GET /orders/{id}#exchange/3/response/body/total. Use it after check_api_conformance to see whether the running implementation, not only its generated document, conforms.",
    inputSchema: z.object({ project: optionalProject }).strict(),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      run: exchangeRun.describe("The latest recorded-traffic run"),
      approved: z.boolean().describe("True when no violation is an error"),
      totalViolations: z.number().describe("Violations found (more than are listed when there are very many)"),
      violations: z.array(violation).describe("The violations, in exchange order"),
      summary: z.array(ruleSummary).describe("Violations counted per rule"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const run = await latestExchangeRun(context, project);
      if (!run) {
        throw cannotVerify(
          "no_exchanges",
          `Project "${project}" has no recorded traffic yet: CI uploads it with arbiter exchanges FILE.har (or POST /api/v1/projects/${project}/exchanges with a HAR file or NDJSON), then call this tool again.`,
        );
      }
      const verdict = await verdictBody(context, project, run.verdictHash);
      if (!verdict)
        throw cannotVerify(
          "verdict_unreadable",
          `The verdict of recorded traffic run ${run.id} of "${project}" cannot be read: let CI upload the recording again.`,
        );
      const shown = verdict.violations.slice(0, 20).map((v) => `- ${v.severity} ${v.rule} ${v.location}: ${v.message}`);
      const text =
        `Recorded traffic run #${run.id} of "${project}" (${run.exchangeCount} exchanges${run.commit ? `, commit ${run.commit}` : ""}) against contract v${run.contractVersion}: ${verdict.approved ? "approved" : "rejected"}, ${verdict.totalViolations} violation(s).` +
        (shown.length
          ? `\n${shown.join("\n")}${verdict.totalViolations > shown.length ? `\n... and ${verdict.totalViolations - shown.length} more in structuredContent / GET /api/v1/projects/${project}/exchanges/${run.id}` : ""}`
          : "");
      return { structuredContent: { project, run, ...verdict }, text };
    },
  });
}
