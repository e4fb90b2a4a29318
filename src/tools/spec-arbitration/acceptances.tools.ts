/**
 * Accepted breaks over MCP (src/contracts/services/acceptances.ts, the same door REST and the console use):
 * spec_break_accept accepts a breaking change of a project until a date (scope contracts.write), and
 * spec_accepted_breaks_list lists the project's acceptances with their state.
 */
import { z } from "zod";
import { acceptBreak, acceptBreakRequest, listAcceptedBreaks } from "../../contracts/services/acceptances";
import { resolveProjectName } from "../../contracts/services/project-access";
import type { AcceptedBreakRecord } from "../../contracts/store/acceptance-table";
import type { CapabilityContext } from "../../mcp/context";
import { optionalProject, READ_SCOPES, readOnly } from "./fields";

const acceptedBreak = z.object({
  id: z.string().describe("The acceptance's id (ab-<n>)"),
  project: z.string(),
  fingerprint: z.string().describe("The change's fingerprint"),
  rule: z.string(),
  location: z.string(),
  reason: z.string(),
  owner: z.string().describe("Who answers for it"),
  expiresAt: z.string().describe("After this the change is an error again"),
  createdAt: z.string(),
  createdBy: z.string(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  lastMatchedAt: z.string().nullable().describe("The last verdict that applied it"),
  lastMatchedSnapshotId: z.number().nullable(),
  state: z
    .enum(["in-force", "not-matching", "expired", "revoked"])
    .describe("not-matching: in force, but the latest snapshot no longer has the change: revoke it"),
});

const line = (a: AcceptedBreakRecord) =>
  `- ${a.id} [${a.state}] ${a.rule} at ${a.location}: ${a.reason} (owner ${a.owner}, until ${a.expiresAt})`;

export function registerAcceptanceTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "spec_break_accept",
    title: "Accept a breaking change until a date",
    description:
      "Accepts a known breaking change of an API project with a reason, an owner and an expiry (at most 366 days ahead). Until it expires, later verdicts (CI snapshots, check_api_draft, contract evolution) report the change as severity accepted, naming this acceptance, instead of an error. Name the change by the fingerprint its violation carries, or by its rule and location. Only for changes the team has decided to ship: fix the others.",
    inputSchema: acceptBreakRequest.extend({ project: optionalProject }).strict(),
    outputSchema: z.object({ acceptedBreak }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    requiredScopes: ["contracts.write"],
    async handler(input, context) {
      const { project: explicit, ...request } = input;
      const project = await resolveProjectName(context, explicit);
      const { acceptance } = await acceptBreak(context, project, request);
      const text = `Accepted ${acceptance.rule} at ${acceptance.location} in "${project}" as ${acceptance.id} until ${acceptance.expiresAt} (owner ${acceptance.owner}). Later verdicts report it as accepted; revoke it with DELETE /api/v1/projects/${project}/accepted-breaks/${acceptance.id}.`;
      return { structuredContent: { acceptedBreak: acceptance }, text };
    },
  });

  ctx.registerTool({
    name: "spec_accepted_breaks_list",
    title: "List accepted breaking changes",
    description:
      "Lists an API project's accepted breaking changes, newest first, with their state: in-force, not-matching (the latest snapshot no longer has the change: it can be revoked), expired or revoked.",
    inputSchema: z.object({ project: optionalProject }).strict(),
    outputSchema: z.object({ project: z.string(), acceptedBreaks: z.array(acceptedBreak) }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const acceptedBreaks = await listAcceptedBreaks(context, project);
      const text = acceptedBreaks.length
        ? `Accepted breaks of "${project}":\n${acceptedBreaks.map(line).join("\n")}`
        : `Project "${project}" has no accepted breaks.`;
      return { structuredContent: { project, acceptedBreaks }, text };
    },
  });
}
